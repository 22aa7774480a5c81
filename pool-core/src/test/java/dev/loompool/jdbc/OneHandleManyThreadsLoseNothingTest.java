package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Array;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** One handle shared by several threads doing deterministic work; compared with the plain driver. */
class OneHandleManyThreadsLoseNothingTest extends OnRealDatabases {

    private static final int ROUNDS = 300;

    interface Loop {
        void round(Connection c, int i) throws Exception;
    }

    static List<Throwable> together(Connection c, Loop... loops) throws Exception {
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> ts = new ArrayList<>();
        for (Loop l : loops) {
            Thread t = new Thread(() -> {
                try {
                    go.await();
                    for (int i = 0; i < ROUNDS; i++) {
                        l.round(c, i);
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            ts.add(t);
            t.start();
        }
        go.countDown();
        for (Thread t : ts) {
            t.join(120_000);
        }
        return errors;
    }

    Loop[] pgLoops() {
        return new Loop[] {
            (c, i) -> { // transactions: commit positive ids, roll back negative ones
                c.setAutoCommit(false);
                run(c, "INSERT INTO " + table + " VALUES (" + (i + 1) + ")");
                c.setSchema("public");
                c.commit();
                run(c, "INSERT INTO " + table + " VALUES (" + (-1 - i) + ")");
                c.rollback();
                c.setAutoCommit(true);
            },
            (c, i) -> { // metadata racing the others' closes
                try (ResultSet rs = c.getMetaData().getTables(null, "public", table, null)) {
                    rs.next();
                }
                c.getMetaData().getDatabaseProductName();
            },
            (c, i) -> { // statements opened and closed without running
                PreparedStatement ps = c.prepareStatement("SELECT 1");
                ps.close();
                Statement st = c.createStatement();
                st.close();
            },
            (c, i) -> { // lent objects
                Array a = c.createArrayOf("int4", new Object[] {1, 2});
                try (PreparedStatement ps = c.prepareStatement("SELECT cardinality(?::int[])")) {
                    ps.setArray(1, a);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                    }
                }
            },
        };
    }

    void check(Connection c, LoomPoolDataSource ds, long expected) throws Exception {
        LoomConnection h = c.unwrap(LoomConnection.class);
        assertThat(c.getAutoCommit()).isTrue();
        assertThat(h.pinReasons()).as("no pin once all threads are done").isEmpty();
        assertThat(h.isBound()).as("unbound once all threads are done").isFalse();
        try (Connection b = ds.getConnection()) {
            assertThat(num(b, "SELECT count(*) FROM " + table)).isEqualTo(expected);
            assertThat(num(b, "SELECT count(*) FROM " + table + " WHERE id < 0")).isZero();
            assertThat(str(b, "SHOW transaction_isolation")).isEqualTo("read committed");
            assertThat(str(b, "SHOW transaction_read_only")).isEqualTo("off");
        }
    }

    @Test
    void pgTransactionsBesideMetadataStatementsAndLobs() throws Exception {
        pgTable();
        try (Connection plain = DriverManager.getConnection(TestDatabase.POSTGRES.url())) {
            assertThat(together(plain, pgLoops())).isEmpty();
        }
        assertThat(pgRows()).isEqualTo(ROUNDS);
        pgAdmin("DELETE FROM " + table);
        LoomPoolDataSource ds = pg(2); // two: one thread of the handle waiting for another's acquire is TwoThreadsOfAHandleWaitForOneConnectionTest's
        try (Connection c = ds.getConnection()) {
            assertThat(together(c, pgLoops())).as("plain driver: no error").isEmpty();
            check(c, ds, ROUNDS);
        }
        assertThat(ds.getPool().stats().inUse()).isZero();
    }

    @Test
    void pgWatchdogClosesWhileTransactionsRun() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        for (int round = 0; round < 30; round++) {
            AtomicInteger committed = new AtomicInteger();
            AtomicInteger commitCalls = new AtomicInteger();
            int base = round * 10_000;
            Connection c = ds.getConnection();
            Thread worker = new Thread(() -> {
                try {
                    for (int i = 0; i < 200; i++) {
                        c.setAutoCommit(false);
                        run(c, "INSERT INTO " + table + " VALUES (" + (base + i) + ")");
                        run(c, "INSERT INTO " + table + " VALUES (" + (-base - i - 1) + ")");
                        run(c, "DELETE FROM " + table + " WHERE id = " + (-base - i - 1));
                        commitCalls.incrementAndGet();
                        c.commit();
                        committed.incrementAndGet();
                    }
                } catch (Throwable e) {
                    // closed under it: expected
                }
            });
            worker.start();
            Thread.sleep(5 + round % 7);
            c.close();
            worker.join(60_000);
            try (Connection b = ds.getConnection()) {
                assertThat(b.getAutoCommit()).isTrue();
                long rows = num(b, "SELECT count(*) FROM " + table + " WHERE id >= " + base + " AND id < " + (base + 10_000));
                assertThat(rows).as("round %d: every returned commit is there, at most the one in flight more", round)
                        .isBetween((long) committed.get(), (long) commitCalls.get());
                assertThat(num(b, "SELECT count(*) FROM " + table + " WHERE id < 0")).isZero();
                assertThat(str(b, "SELECT count(*) FROM pg_stat_activity WHERE pid = pg_backend_pid() AND state = 'active'")).isEqualTo("1");
            }
            assertThat(ds.getPool().stats().inUse()).isZero();
        }
    }

    /**
     * Borrower A's worker runs short autocommit inserts while A's watchdog cancels whatever statement
     * A has open; borrower B, on the same pool of one, runs inserts of its own. B never sees A's
     * cancel (on the plain driver B has a connection of its own), and A's committed rows are exactly
     * the inserts that returned normally.
     */
    @Test
    void pgWatchdogCancelOfOneBorrowerNeverReachesAnother() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        ds.setAcquireTimeout(java.time.Duration.ofSeconds(30));
        java.util.concurrent.atomic.AtomicReference<Statement> current = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        AtomicInteger aOk = new AtomicInteger();
        List<Throwable> bErrors = new CopyOnWriteArrayList<>();
        List<Throwable> aOther = new CopyOnWriteArrayList<>();
        Connection a = ds.getConnection();
        Thread worker = new Thread(() -> {
            for (int i = 0; i < 300; i++) {
                try (Statement st = a.createStatement()) {
                    current.set(st);
                    st.execute("INSERT INTO " + table + " SELECT " + (i + 1) + " FROM pg_sleep(0.002)");
                    aOk.incrementAndGet();
                } catch (java.sql.SQLException e) {
                    if (!"57014".equals(e.getSQLState())) {
                        aOther.add(e);
                    }
                } finally {
                    current.set(null);
                }
            }
            done.set(true);
        });
        Thread watchdog = new Thread(() -> {
            while (!done.get()) {
                Statement st = current.get();
                if (st != null) {
                    try {
                        st.cancel();
                    } catch (Throwable e) {
                        // closed meanwhile
                    }
                }
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        Thread b = new Thread(() -> {
            for (int i = 0; i < 300 && !done.get(); i++) {
                try (Connection cb = ds.getConnection(); Statement st = cb.createStatement()) {
                    st.execute("INSERT INTO " + table + " SELECT " + (-1 - i) + " FROM pg_sleep(0.002)");
                } catch (Throwable e) {
                    bErrors.add(e);
                }
            }
        });
        worker.start();
        watchdog.start();
        b.start();
        worker.join(120_000);
        watchdog.join(10_000);
        b.join(120_000);
        assertThat(bErrors).as("B never sees A's watchdog").isEmpty();
        assertThat(aOther).isEmpty();
        LoomConnection h = a.unwrap(LoomConnection.class);
        assertThat(h.pinReasons()).isEmpty();
        assertThat(h.isBound()).isFalse();
        a.close();
        assertThat(pgAdminCount("id > 0")).as("A's rows: exactly the inserts that returned").isEqualTo(aOk.get());
    }

    long pgAdminCount(String where) throws Exception {
        try (Connection c = TestDatabase.POSTGRES.admin()) {
            return num(c, "SELECT count(*) FROM " + table + " WHERE " + where);
        }
    }
}
