package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A call in the settings' turn fails (a driver error, the backend killed under a commit); the next
 * setter on another thread must not hang. Spring-style use beside a forked thread running
 * statements must finish and leave nothing bound.
 */
class SettingsTurnGivenBackAfterAFailureTest extends OnRealDatabases {

    @Test
    void turnGivenBackAfterTheBackendIsKilledUnderACommit() throws Exception {
        LoomPoolDataSource ds = pg(2);
        ds.setAcquireTimeout(Duration.ofSeconds(5));
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            run(c, "SELECT 1");
            long pid = pgPid(c);
            pgAdmin("SELECT pg_terminate_backend(" + pid + ")");
            Thread.sleep(200);
            Throwable[] commit = new Throwable[1];
            Thread a = new Thread(() -> {
                try {
                    c.commit();
                } catch (Throwable e) {
                    commit[0] = e;
                }
            }, "A-commit");
            a.start();
            a.join(10_000);
            assertThat(a.isAlive()).isFalse();
            Throwable[] other = new Throwable[1];
            Object[] got = new Object[1];
            Thread b = new Thread(() -> {
                try {
                    c.rollback();
                    c.setReadOnly(true);
                    got[0] = c.getAutoCommit() + "/" + c.isReadOnly() + "/" + c.getTransactionIsolation();
                    c.setReadOnly(false);
                    c.setAutoCommit(true);
                } catch (Throwable e) {
                    other[0] = e;
                }
            }, "B-setters");
            b.start();
            b.join(10_000);
            assertThat(b.isAlive()).as("B hangs after A's failed commit%n%s", Arrays.toString(b.getStackTrace())).isFalse();
            run(c, "SELECT 1");
            assertThat(c.unwrap(LoomConnection.class).pinReasons()).isEmpty();
        }
        assertThat(ds.getPool().stats().inUse()).isZero();
    }

    @Test
    void turnGivenBackAfterADriverError() throws Exception {
        LoomPoolDataSource ds = maria(2);
        try (Connection c = ds.getConnection()) {
            Thread a = new Thread(() -> {
                try {
                    c.setCatalog("no_such_db_loompool_live");
                } catch (Throwable e) {
                    // refused: an outcome here, not a failure
                }
                try {
                    c.setTransactionIsolation(12345);
                } catch (Throwable e) {
                    // refused: an outcome here, not a failure
                }
                try {
                    c.setSchema(null);
                    c.setNetworkTimeout(null, -5);
                } catch (Throwable e) {
                    // refused: an outcome here, not a failure
                }
            }, "A-bad-setters");
            a.start();
            a.join(10_000);
            assertThat(a.isAlive()).isFalse();
            Thread b = new Thread(() -> {
                try {
                    c.setReadOnly(true);
                    c.getAutoCommit();
                    c.setReadOnly(false);
                } catch (Throwable e) {
                    // refused: an outcome here, not a failure
                }
            }, "B-setters");
            b.start();
            b.join(10_000);
            assertThat(b.isAlive()).as("B hangs%n%s", Arrays.toString(b.getStackTrace())).isFalse();
        }
        assertThat(ds.getPool().stats().inUse()).isZero();
    }

    /** Spring-style: one thread begins and commits transactions; a forked thread runs statements on the handle. */
    @Test
    void springStyleTransactionsBesideAForkedThread() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(2);
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        try (Connection c = ds.getConnection()) {
            ExecutorService ex = Executors.newFixedThreadPool(2);
            Future<?> tx = ex.submit(() -> {
                for (int i = 0; i < 200; i++) {
                    try {
                        boolean ac = c.getAutoCommit();
                        c.setAutoCommit(false);
                        run(c, "INSERT INTO " + table + " VALUES (" + i + ")");
                        if (i % 3 == 0) {
                            c.rollback();
                        } else {
                            c.commit();
                        }
                        c.setAutoCommit(ac);
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                }
                return null;
            });
            Future<?> fork = ex.submit(() -> {
                for (int i = 0; i < 400; i++) {
                    try (Statement st = c.createStatement()) {
                        st.executeQuery("SELECT 1").close();
                        c.isValid(1);
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                }
                return null;
            });
            tx.get(60, TimeUnit.SECONDS);
            fork.get(60, TimeUnit.SECONDS);
            ex.shutdown();
            assertThat(errors).isEmpty();
            assertThat(c.getAutoCommit()).isTrue();
            LoomConnection h = c.unwrap(LoomConnection.class);
            if (!h.pinReasons().isEmpty()) {
                // pgjdbc's own race, on the plain driver too: setAutoCommit(true) commits, then sets
                // its flag; a statement of the forked thread between the two begins a transaction
                // nobody commits. The handle keeps that connection for it, shown as TRANSACTION.
                assertThat(h.pinReasons()).containsExactly(PinReason.TRANSACTION);
                assertThat(str(c, "SELECT (now() <> statement_timestamp())::text")).as("a transaction is open").isEqualTo("true");
                run(c, "COMMIT");
            }
            assertThat(h.pinReasons()).isEmpty();
            assertThat(h.isBound()).isFalse();
        }
        assertThat(ds.getPool().stats().inUse()).isZero();
    }
}
