package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * MariaDB Connector/J's transaction flags (issue 26, item 5): an error packet carries no status
 * (the driver then sets SERVER_STATUS_IN_TRANS on its own), and the flags are a plain field the
 * driver updates while a statement runs. Borrower A leaves the connection in one of those moments;
 * what does B get, and what did A commit?
 */
class MariaDbStaleWireTest extends HostileSupport {

    private LoomPoolDataSource one(Duration acquire) {
        LoomPoolDataSource ds = maria(1);
        ds.setAcquireTimeout(acquire);
        return ds;
    }

    static void eventually(String what, BooleanSupplier b) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!b.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out: " + what);
            }
            Thread.sleep(10);
        }
    }

    /** Whether connection {@code id} runs a SLEEP now, as the server's process list says. */
    static boolean sleeping(long id) {
        try (Connection c = TestDatabase.MARIADB.admin()) {
            return num(c, "SELECT count(*) FROM information_schema.PROCESSLIST WHERE ID = " + id
                    + " AND INFO LIKE '%SLEEP(%'") == 1;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** B, on the pool's only connection, while A keeps its handle open after a failed statement. */
    private void idleHandleAfterAnErrorDoesNotKeepTheConnection(ThrowingConsumer failing) throws Exception {
        LoomPoolDataSource ds = one(Duration.ofSeconds(3));
        try (Connection a = ds.getConnection()) {
            long idA = myIdUnpinned(a);
            failing.accept(a, idA);
            assertThat(a.unwrap(LoomConnection.class).isBound()).as("A is idle: no transaction, no statement").isFalse();
            try (Connection b = ds.getConnection()) {
                assertThat(myIdUnpinned(b)).as("B gets the pool's only connection").isEqualTo(idA);
            }
        }
    }

    interface ThrowingConsumer {
        void accept(Connection c, long id) throws Exception;
    }

    @Test
    void aFailedStatementLeavesNoTransactionPinOnAnIdleHandle() throws Exception {
        idleHandleAfterAnErrorDoesNotKeepTheConnection((a, id) ->
                assertThatThrownBy(() -> run(a, "SELECT * FROM missing_table_" + tag)).isInstanceOf(SQLException.class));
    }

    @Test
    void aQueryTimeoutLeavesNoTransactionPinOnAnIdleHandle() throws Exception {
        idleHandleAfterAnErrorDoesNotKeepTheConnection((a, id) -> {
            try (Statement st = a.createStatement()) {
                st.setQueryTimeout(1);
                assertThatThrownBy(() -> st.execute("SELECT SLEEP(5)")).isInstanceOf(SQLException.class);
            }
        });
    }

    @Test
    void aCancelledStatementLeavesNoTransactionPinOnAnIdleHandle() throws Exception {
        idleHandleAfterAnErrorDoesNotKeepTheConnection((a, id) -> {
            try (Statement st = a.createStatement()) {
                CompletableFuture<Void> cancel = CompletableFuture.runAsync(() -> {
                    try {
                        eventually("A sleeps", () -> sleeping(id));
                        st.cancel();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                assertThatThrownBy(() -> st.execute("SELECT SLEEP(10)")).isInstanceOf(SQLException.class);
                cancel.get(15, TimeUnit.SECONDS);
            }
        });
    }

    /** Inside a transaction begun by SQL, an error leaves the transaction open: A keeps the connection. */
    @Test
    void aFailedStatementInsideATransactionStillPins() throws Exception {
        mariaTable();
        LoomPoolDataSource ds = one(Duration.ofSeconds(1));
        try (Connection a = ds.getConnection()) {
            run(a, "START TRANSACTION");
            run(a, "INSERT INTO " + table + " (v) VALUES (1)");
            assertThatThrownBy(() -> run(a, "SELECT * FROM missing_table_" + tag)).isInstanceOf(SQLException.class);
            assertThat(a.unwrap(LoomConnection.class).isBound()).isTrue();
            try (Connection b = ds.getConnection()) {
                assertThatThrownBy(() -> run(b, "SELECT 1")).as("B waits: A's transaction holds the only connection")
                        .isInstanceOf(SQLException.class);
            }
            run(a, "COMMIT");
            assertThat(a.unwrap(LoomConnection.class).isBound()).isFalse();
        }
        assertThat(mariaRows()).isEqualTo(1);
    }

    /**
     * A watchdog closes A's handle during the first statement of A's transaction (autocommit off):
     * A's insert must be rolled back, never committed by the reset's setAutoCommit(true).
     */
    @Test
    void aWatchdogCloseDuringTheFirstStatementOfATransactionRollsItBack() throws Exception {
        mariaTable();
        LoomPoolDataSource ds = one(Duration.ofSeconds(10));
        Connection a = ds.getConnection();
        long idA = myId(a);
        a.setAutoCommit(false);
        CountDownLatch ran = new CountDownLatch(1);
        Thread owner = new Thread(() -> {
            try (Statement st = a.createStatement()) {
                st.execute("INSERT INTO " + table + " (v) SELECT 1 FROM (SELECT SLEEP(2)) s");
            } catch (SQLException expected) {
                // the watchdog's close may cut it
            } finally {
                ran.countDown();
            }
        }, "owner-A");
        owner.start();
        eventually("A's insert sleeps", () -> sleeping(idA));
        a.close(); // the watchdog
        assertThat(ran.await(15, TimeUnit.SECONDS)).isTrue();
        owner.join(15_000);
        try (Connection b = ds.getConnection()) {
            run(b, "SELECT 1");
        }
        assertThat(mariaRows()).as("A never committed").isZero();
    }

    /**
     * A watchdog closes A's handle during {@code SELECT SLEEP(2); START TRANSACTION} (autocommit
     * on): the connection must not go to B inside A's transaction, where B's autocommit insert
     * would be rolled back.
     */
    @Test
    void aWatchdogCloseDuringAMultiQueryThatBeginsATransactionDoesNotLendItsTransaction() throws Exception {
        mariaTable();
        LoomPoolDataSource ds = one(Duration.ofSeconds(10));
        Connection a = ds.getConnection();
        long idA = myId(a);
        Thread owner = new Thread(() -> {
            try (Statement st = a.createStatement()) {
                st.execute("SELECT SLEEP(2); START TRANSACTION");
            } catch (SQLException expected) {
                // the close may cut it
            }
        }, "owner-A");
        owner.start();
        eventually("A sleeps", () -> sleeping(idA));
        a.close(); // the watchdog
        try (Connection b = ds.getConnection()) {
            run(b, "INSERT INTO " + table + " (v) VALUES (2)");
        }
        owner.join(15_000);
        assertThat(mariaRows()).as("B's autocommit insert is committed").isEqualTo(1);
    }

    /** Statement.close() on another thread while its query runs: the connection is not lent meanwhile. */
    @Test
    void aForeignStatementCloseDoesNotLendTheConnectionWhileItsQueryRuns() throws Exception {
        mariaTable();
        LoomPoolDataSource ds = one(Duration.ofSeconds(10));
        Connection a = ds.getConnection();
        long idA = myId(a);
        Statement st = a.createStatement();
        Thread owner = new Thread(() -> {
            try {
                st.execute("SELECT SLEEP(2)");
            } catch (SQLException expected) {
                // the close may cut it
            }
        }, "owner-A");
        owner.start();
        eventually("A sleeps", () -> sleeping(idA));
        st.close(); // another thread
        boolean lendable = !a.unwrap(LoomConnection.class).isBound();
        assertThat(lendable && sleeping(idA)).as("the connection is free to lend while A's query still runs").isFalse();
        AtomicLong bRows = new AtomicLong(-1);
        Thread b = new Thread(() -> {
            try (Connection c = ds.getConnection()) {
                run(c, "INSERT INTO " + table + " (v) VALUES (2)");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            bRows.set(0);
        }, "B");
        b.start();
        owner.join(15_000);
        a.close();
        b.join(15_000);
        assertThat(bRows.get()).as("B ran").isZero();
        assertThat(mariaRows()).as("B's autocommit insert is committed").isEqualTo(1);
    }

    /**
     * MySQL Connector/J keeps the state of its last stored OK packet: after
     * {@code START TRANSACTION; INSERT …; <an error>} it says "no transaction" on an open one, and
     * a ping does not correct it. A's insert must be rolled back, and B's autocommit insert commit.
     */
    @Test
    void mysqlConnectorJAnErrorAfterATransactionBeganInTheSameTextDoesNotLendTheTransaction() throws Exception {
        mariaTable();
        LoomPoolDataSource ds = one(Duration.ofSeconds(3));
        ds.setJdbcUrl(TestDatabase.MARIADB.url().replace("jdbc:mariadb:", "jdbc:mysql:") + "&allowMultiQueries=true");
        try (Connection a = ds.getConnection()) {
            assertThatThrownBy(() -> run(a, "START TRANSACTION; INSERT INTO " + table + " (v) VALUES (1); SELECT * FROM missing_"
                    + tag)).isInstanceOf(SQLException.class);
        }
        try (Connection b = ds.getConnection()) {
            run(b, "INSERT INTO " + table + " (v) VALUES (2)");
        }
        try (Connection admin = TestDatabase.MARIADB.admin()) {
            assertThat(str(admin, "SELECT coalesce(group_concat(v ORDER BY v), 'none') FROM " + table))
                    .as("A's insert rolled back, B's committed").isEqualTo("2");
        }
    }
    /**
     * MySQL Connector/J's status flags say autocommit is off as well as whether a transaction is
     * open (issue 27). A turns autocommit off where the SQL classifier does not look (inside a
     * compound statement, which today's classifier takes for nothing): B's two autocommitted
     * inserts must both be committed, not held in a transaction the server opened for them and
     * rolled back when B closes.
     */
    @Test
    void mysqlConnectorJAutocommitTurnedOffBySqlTheClassifierMissesDoesNotHoldTheNextBorrowersWrites()
            throws Exception {
        mariaTable();
        LoomPoolDataSource ds = one(Duration.ofSeconds(3));
        ds.setJdbcUrl(TestDatabase.MARIADB.url().replace("jdbc:mariadb:", "jdbc:mysql:"));
        long idA;
        try (Connection first = ds.getConnection()) {
            idA = myIdUnpinned(first); // on a handle of its own: A's lets go by A's SQL alone
        }
        try (Connection a = ds.getConnection()) {
            run(a, "IF 1 THEN SET autocommit = 0; END IF");
        }
        String bSaw;
        try (Connection b = ds.getConnection()) {
            run(b, "INSERT INTO " + table + " (v) VALUES (1)");
            run(b, "INSERT INTO " + table + " (v) VALUES (2)");
            bSaw = "B on " + (myIdUnpinned(b) == idA ? "A's connection" : "a new connection") + " saw @@autocommit "
                    + str(b, "SELECT @@autocommit");
        }
        assertThat(mariaRows()).as("%s; of B's 2 autocommitted inserts, committed", bSaw).isEqualTo(2);
    }
}
