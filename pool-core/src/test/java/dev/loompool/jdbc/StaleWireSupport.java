package dev.loompool.jdbc;

import static dev.loompool.jdbc.BorrowerScenarios.*;
import static dev.loompool.jdbc.PlainQueries.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the stale-wire probes of {@link MariaDbStaleWireTest} and {@link PostgresStaleWireTest}
 * share: a pool of one, a failed statement on an idle handle, and a watchdog or another thread
 * ending A's work while A's backend sleeps in a statement. The cases alike on both databases are
 * here, and run in each subclass.
 */
abstract class StaleWireSupport {

    /** The hostile probes' pools, tables and queries, held rather than inherited (two levels at most). */
    final OnRealDatabases hostile = new OnRealDatabases() { };
    private final TestDatabase db;

    StaleWireSupport(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void cleanup() throws Exception {
        hostile.cleanup();
    }

    /** A failure A provokes on its handle {@code c}, whose backend is {@code id}. */
    @FunctionalInterface
    interface Failing {
        void accept(Connection c, long id) throws Exception;
    }

    /** A pool of one connection, whose borrowers wait up to {@code acquire} for it. */
    LoomPoolDataSource one(Duration acquire) {
        LoomPoolDataSource ds = db == TestDatabase.POSTGRES ? hostile.pg(1) : hostile.maria(1);
        ds.setAcquireTimeout(acquire);
        return ds;
    }

    /** The backend's id by an identity read (pg_backend_pid() or CONNECTION_ID()), which pins the handle. */
    long backend(Connection c) throws SQLException {
        return db == TestDatabase.POSTGRES ? pgPid(c) : myId(c);
    }

    private long backendUnpinned(Connection c) throws SQLException {
        return db == TestDatabase.POSTGRES ? pgPidUnpinned(c) : myIdUnpinned(c);
    }

    /** The database's sleep of {@code seconds}, as a statement. */
    private String sleep(int seconds) {
        return (db == TestDatabase.POSTGRES ? "SELECT pg_sleep(" : "SELECT SLEEP(") + seconds + ")";
    }

    private void table() throws SQLException {
        if (db == TestDatabase.POSTGRES) {
            hostile.pgTable();
        } else {
            hostile.mariaTable();
        }
    }

    /** The rows committed in the test table, as an independent session sees them. */
    long rows() throws SQLException {
        return db == TestDatabase.POSTGRES ? hostile.pgRows() : hostile.mariaRows();
    }

    @Test
    void aFailedStatementLeavesNoTransactionPinOnAnIdleHandle() throws Exception {
        idleHandleAfterAnErrorDoesNotKeepTheConnection((a, id) ->
                assertThatThrownBy(() -> run(a, "SELECT * FROM missing_table_" + hostile.tag)).isInstanceOf(SQLException.class));
    }

    @Test
    void aQueryTimeoutLeavesNoTransactionPinOnAnIdleHandle() throws Exception {
        idleHandleAfterAnErrorDoesNotKeepTheConnection((a, id) -> timesOut(a, sleep(5)));
    }

    @Test
    void aCancelledStatementLeavesNoTransactionPinOnAnIdleHandle() throws Exception {
        idleHandleAfterAnErrorDoesNotKeepTheConnection((a, id) -> cancelledWhileSleeping(a, id, sleep(10)));
    }

    /**
     * A watchdog closes A's handle during the first statement of A's transaction (autocommit off):
     * A's insert must be rolled back, never committed by the reset's setAutoCommit(true).
     */
    @Test
    void aWatchdogCloseDuringTheFirstStatementOfATransactionRollsItBack() throws Exception {
        table();
        LoomPoolDataSource ds = one(Duration.ofSeconds(10));
        String insertSleeping = db == TestDatabase.POSTGRES
                ? "INSERT INTO " + hostile.table + " SELECT 1 FROM pg_sleep(2)"
                : "INSERT INTO " + hostile.table + " (v) SELECT 1 FROM (SELECT SLEEP(2)) s";
        Thread owner = watchdogClosesAWhileItSleeps(ds, false, insertSleeping, "A's insert sleeps");
        owner.join(15_000);
        assertThat(owner.isAlive()).as("A's insert ended").isFalse();
        try (Connection b = ds.getConnection()) {
            run(b, "SELECT 1");
        }
        assertThat(rows()).as("A never committed").isZero();
    }

    /**
     * A watchdog closes A's handle during {@code sleepThenBegin}, a sleep and then the start of a
     * transaction in one text (autocommit on): the connection must not go to B inside A's
     * transaction, where B's autocommit insert would be rolled back.
     */
    void watchdogCloseDuringATextThatBeginsATransactionDoesNotLendIt(String sleepThenBegin) throws Exception {
        table();
        LoomPoolDataSource ds = one(Duration.ofSeconds(10));
        Thread owner = watchdogClosesAWhileItSleeps(ds, true, sleepThenBegin, "A sleeps");
        try (Connection b = ds.getConnection()) {
            run(b, hostile.insertOf(db, 2));
        }
        owner.join(15_000);
        assertThat(rows()).as("B's autocommit insert is committed").isEqualTo(1);
    }

    /** B, on the pool's only connection, while A keeps its handle open after {@code failing}. */
    void idleHandleAfterAnErrorDoesNotKeepTheConnection(Failing failing) throws Exception {
        LoomPoolDataSource ds = one(Duration.ofSeconds(3));
        try (Connection a = ds.getConnection()) {
            long idA = backendUnpinned(a);
            failing.accept(a, idA);
            assertThat(a.unwrap(LoomConnection.class).isBound()).as("A is idle: no transaction, no statement").isFalse();
            try (Connection b = ds.getConnection()) {
                assertThat(backendUnpinned(b)).as("B gets the pool's only connection").isEqualTo(idA);
            }
        }
    }

    /** A's {@code sleep} on a statement with a query timeout of 1 s: the timeout ends it with an error. */
    static void timesOut(Connection a, String sleep) throws SQLException {
        try (Statement st = a.createStatement()) {
            st.setQueryTimeout(1);
            assertThatThrownBy(() -> st.execute(sleep)).isInstanceOf(SQLException.class);
        }
    }

    /** A's {@code sleep}, cancelled from another thread once A's backend {@code id} sleeps in it: it ends with an error. */
    void cancelledWhileSleeping(Connection a, long id, String sleep) throws Exception {
        try (Statement st = a.createStatement()) {
            CompletableFuture<Void> cancel = CompletableFuture.runAsync(() -> {
                try {
                    eventually("A sleeps", () -> sleeping(db, id));
                    st.cancel();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThatThrownBy(() -> st.execute(sleep)).isInstanceOf(SQLException.class);
            cancel.get(15, TimeUnit.SECONDS);
        }
    }

    /**
     * Borrower A, on {@code ds}, runs {@code sql} on a thread of its own (autocommit off first
     * unless {@code autoCommit}); the watchdog, on this thread, closes A's handle while A's backend
     * sleeps in it.
     *
     * @return A's thread, perhaps still running
     */
    Thread watchdogClosesAWhileItSleeps(LoomPoolDataSource ds, boolean autoCommit, String sql, String what)
            throws Exception {
        Connection a = ds.getConnection();
        long idA = backend(a);
        if (!autoCommit) {
            a.setAutoCommit(false);
        }
        Thread owner = ownerWhileItSleeps(a, idA, what, c -> {
            try (Statement st = c.createStatement()) {
                st.execute(sql);
            }
        });
        a.close(); // the watchdog
        return owner;
    }

    /**
     * A's statement runs {@code sql} on A's own thread; this thread closes the statement while A's
     * backend sleeps in it: the connection must not be free to lend while the query still runs.
     *
     * @return A's thread, perhaps still running
     */
    Thread foreignStatementCloseWhileItSleeps(Connection a, String sql) throws Exception {
        long idA = backend(a);
        Statement st = a.createStatement();
        Thread owner = ownerWhileItSleeps(a, idA, "A sleeps", c -> st.execute(sql));
        st.close(); // another thread
        boolean lendable = !a.unwrap(LoomConnection.class).isBound();
        assertThat(lendable && sleeping(db, idA)).as("the connection is free to lend while A's query still runs").isFalse();
        return owner;
    }

    /** Starts {@code work} on {@code a} on the thread "owner-A"; returns once A's backend {@code idA} sleeps. */
    private Thread ownerWhileItSleeps(Connection a, long idA, String what, Use work) throws InterruptedException {
        Thread owner = new Thread(() -> {
            try {
                work.on(a);
            } catch (SQLException expected) {
                // the close on another thread may cut it
            }
        }, "owner-A");
        owner.start();
        eventually(what, () -> sleeping(db, idA));
        return owner;
    }
}
