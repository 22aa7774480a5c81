package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 37: a handle used from more than one thread, as virtual-thread code uses it (a helper
 * thread that runs one query for its caller, a {@link CompletableFuture}, a watchdog that cancels
 * or closes), on the real servers. Borrower A uses its handle so; then B, on a pool of one, must
 * get the connection: a handle left bound with no reason shown keeps it from B forever. The
 * invariant checked wherever a handle is seen: bound means a pin reason is shown (or a statement
 * runs).
 */
class HandleAcrossThreadsTest extends OnRealDatabases {

    private static String sleep(TestDatabase db, int seconds) {
        return db == TestDatabase.POSTGRES ? "SELECT pg_sleep(" + seconds + ")" : "SELECT SLEEP(" + seconds + ")";
    }

    /** Bound only for a reason it shows: the invariant of DESIGN.md §4, "One state machine, every thread". */
    static void boundOnlyForAReason(Connection handle) throws SQLException {
        LoomConnection h = handle.unwrap(LoomConnection.class);
        if (h.isBound()) {
            assertThat(h.pinReasons()).as("a bound handle shows why it is bound").isNotEmpty();
        }
    }

    /** A handle with no pin: unbound, no reason, and B gets the pool's one connection and uses it. */
    private static void letGo(LoomPoolDataSource ds, Connection a) throws SQLException {
        LoomConnection h = a.unwrap(LoomConnection.class);
        assertThat(h.pinReasons()).as("nothing pins A's handle").isEmpty();
        assertThat(h.isBound()).as("A's handle let its connection go").isFalse();
        try (Connection b = ds.getConnection()) {
            assertThat(num(b, "SELECT 7")).as("B runs on the pool's one connection").isEqualTo(7);
        }
    }

    private static Thread other(String name, ThrowingRunnable r, AtomicReference<Throwable> failure) {
        Thread t = new Thread(() -> {
            try {
                r.run();
            } catch (Throwable e) {
                failure.set(e);
            }
        }, name);
        t.start();
        return t;
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aStatementRunOnAnotherThreadThenClosedByTheCallerLetsTheConnectionGo(TestDatabase db) throws Exception {
        LoomPoolDataSource ds = one(db);
        try (Connection a = ds.getConnection()) {
            Statement st = a.createStatement();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            other("helper", () -> {
                try (ResultSet rs = st.executeQuery("SELECT 5")) {
                    rs.next();
                }
            }, failure).join();
            assertThat(failure.get()).isNull();
            boundOnlyForAReason(a);
            st.close();
            boundOnlyForAReason(a);
            letGo(ds, a);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aPreparedStatementRunByAFutureThenClosedByTheCallerLetsTheConnectionGo(TestDatabase db) throws Exception {
        LoomPoolDataSource ds = one(db);
        try (Connection a = ds.getConnection()) {
            PreparedStatement ps = a.prepareStatement("SELECT 6");
            long six = CompletableFuture.supplyAsync(() -> {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }).get(30, TimeUnit.SECONDS);
            assertThat(six).isEqualTo(6);
            boundOnlyForAReason(a);
            ps.close();
            letGo(ds, a);
        }
    }

    /** The whole statement on the helper thread, the handle's close on the caller's. */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aHandleWhoseStatementsRanOnAnotherThreadLetsGoAtClose(TestDatabase db) throws Exception {
        LoomPoolDataSource ds = one(db);
        Connection a = ds.getConnection();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        other("helper", () -> {
            try (Statement st = a.createStatement(); ResultSet rs = st.executeQuery("SELECT 5")) {
                rs.next();
            }
        }, failure).join();
        assertThat(failure.get()).isNull();
        letGo(ds, a);
        a.close();
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aStatementStoppedByItsQueryTimeoutOnAnotherThreadThenClosedLetsTheConnectionGo(TestDatabase db) throws Exception {
        LoomPoolDataSource ds = one(db);
        try (Connection a = ds.getConnection()) {
            Statement st = a.createStatement();
            st.setQueryTimeout(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            other("helper", () -> st.executeQuery(sleep(db, 5)), failure).join();
            if (db == TestDatabase.POSTGRES) {
                assertThat(failure.get()).as("pgjdbc stops the statement at its query timeout").isInstanceOf(SQLException.class);
            } // MariaDB's SLEEP answers 1 when killed by the timeout (no error): either way it ended
            boundOnlyForAReason(a);
            st.close();
            letGo(ds, a);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aStatementCancelledByTheCallerWhileItRunsOnAnotherThreadLetsTheConnectionGoOnceClosed(TestDatabase db)
            throws Exception {
        LoomPoolDataSource ds = one(db);
        try (Connection a = ds.getConnection()) {
            Statement st = a.createStatement();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread helper = other("helper", () -> st.executeQuery(sleep(db, 5)), failure);
            awaitRunning(db, db == TestDatabase.POSTGRES ? "pg_sleep(5)" : "SLEEP(5)");
            st.cancel(); // the watchdog
            helper.join(30_000);
            boundOnlyForAReason(a);
            st.close();
            letGo(ds, a);
        }
    }

    /**
     * A watchdog closes the statement while the helper thread still runs it: once the helper's call
     * returns (with the driver's error), nothing else is pending, and the connection goes back
     * without a further call on the handle.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aStatementClosedByAWatchdogWhileItRunsLetsTheConnectionGoWhenTheRunEnds(TestDatabase db) throws Exception {
        LoomPoolDataSource ds = one(db);
        try (Connection a = ds.getConnection()) {
            Statement st = a.createStatement();
            String marker = "wdrun_" + tag;
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread helper = other("helper", () -> st.executeQuery(sleep(db, 2) + " AS " + marker), failure);
            awaitRunning(db, marker);
            Thread watchdog = other("watchdog", st::close, new AtomicReference<>());
            boolean lentWhileRunning = false;
            while (helper.isAlive()) {
                // never free to lend while the statement still runs on it, as the server's own list says
                lentWhileRunning |= !a.unwrap(LoomConnection.class).isBound() && stillRunning(db, marker);
                Thread.sleep(5);
            }
            watchdog.join(30_000);
            assertThat(lentWhileRunning).as("the connection was free to lend while A's statement ran").isFalse();
            letGo(ds, a);
        }
    }

    private static boolean stillRunning(TestDatabase db, String marker) {
        return db == TestDatabase.POSTGRES ? WatchdogCloseTest.pgRunning(marker) : WatchdogCloseTest.mariaRunning(marker);
    }

    /** {@code isValid(t)} answers within t, whether or not a connection is free (DESIGN.md §4, the error table). */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void isValidOfAnUnboundHandleAnswersWithinItsTimeoutWhileThePoolIsExhausted(TestDatabase db) throws Exception {
        LoomPoolDataSource ds = one(db);
        try (Connection busy = ds.getConnection(); Connection a = ds.getConnection()) {
            busy.setAutoCommit(false);
            run(busy, "SELECT 1"); // holds the pool's one connection in its transaction
            long start = System.nanoTime();
            boolean valid = a.isValid(1);
            long took = System.nanoTime() - start;
            assertThat(TimeUnit.NANOSECONDS.toMillis(took)).as("isValid(1) waited for a connection past its bound")
                    .isLessThan(4_000);
            assertThat(valid).as("a busy pool is no invalid handle: the database answers").isTrue();
            assertThat(a.unwrap(LoomConnection.class).isBound()).isFalse();
            busy.rollback();
        }
    }

    /** The pool's close wakes a waiter at once, even while another borrower's statement runs. */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void closeOfThePoolWakesAWaiterBeforeAnotherBorrowersStatementEnds(TestDatabase db) throws Exception {
        LoomPoolDataSource ds = one(db);
        ds.setValidationTimeout(Duration.ofSeconds(10)); // the close's grace for A's statement: longer than A's sleep
        Connection a = ds.getConnection();
        AtomicBoolean aDone = new AtomicBoolean();
        Thread aThread = other("A", () -> {
            try {
                run(a, sleep(db, 3));
            } finally {
                aDone.set(true);
            }
        }, new AtomicReference<>());
        awaitRunning(db, db == TestDatabase.POSTGRES ? "pg_sleep(3)" : "SLEEP(3)");
        AtomicBoolean aDoneWhenBWasTold = new AtomicBoolean(true);
        AtomicReference<Throwable> bGot = new AtomicReference<>();
        Thread bThread = new Thread(() -> {
            try (Connection b = ds.getConnection()) {
                run(b, "SELECT 1");
            } catch (Throwable e) {
                aDoneWhenBWasTold.set(aDone.get());
                bGot.set(e);
            }
        }, "B");
        bThread.start();
        eventually("B waits", () -> ds.getPool().stats().pending() == 1);
        Thread closer = new Thread(ds::close, "closer");
        closer.start();
        bThread.join(30_000);
        assertThat(bGot.get()).isInstanceOf(SQLException.class);
        assertThat(((SQLException) bGot.get()).getSQLState()).isEqualTo("08003");
        assertThat(aDoneWhenBWasTold.get()).as("B was told of the close only when A's statement ended").isFalse();
        aThread.join(30_000);
        closer.join(30_000);
    }

    /**
     * MariaDB, autocommit on: the server kills A's connection under an open statement. There was
     * no transaction: the next statement on the handle runs on a fresh connection, as the plain
     * driver's next connection would, and PostgreSQL's path does.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aConnectionKilledUnderAnOpenStatementInAutocommitIsReplacedForTheNextStatement(TestDatabase db) throws Exception {
        LoomPoolDataSource ds = one(db);
        try (Connection a = ds.getConnection()) {
            Statement st = a.createStatement();
            long id = db == TestDatabase.POSTGRES ? pgPidUnpinned(a) : myIdUnpinned(a); // an identity read would pin
            try (Connection admin = db.admin()) {
                run(admin, db == TestDatabase.POSTGRES ? "SELECT pg_terminate_backend(" + id + ")" : "KILL " + id);
            }
            assertThatThrownBy(() -> st.executeQuery("SELECT 1")).isInstanceOf(SQLException.class);
            st.close();
            assertThat(num(a, "SELECT 8")).as("autocommit: nothing was lost, the next statement runs").isEqualTo(8);
            boundOnlyForAReason(a);
        }
    }

    /**
     * The same kill under a handle that relied on its session (SQL set a variable): a fresh
     * connection would not have it, so the handle ends and says so, as the driver's does; nothing
     * runs on without it.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aConnectionKilledUnderSessionStateEndsTheHandleInsteadOfGoingOnWithoutIt(TestDatabase db) throws Exception {
        LoomPoolDataSource ds = one(db);
        Connection a = ds.getConnection();
        Statement st = a.createStatement();
        run(a, db == TestDatabase.POSTGRES ? "SET search_path TO pg_catalog" : "SET @loompool_mark = 1");
        long id = db == TestDatabase.POSTGRES ? pgPidUnpinned(a) : myIdUnpinned(a);
        try (Connection admin = db.admin()) {
            run(admin, db == TestDatabase.POSTGRES ? "SELECT pg_terminate_backend(" + id + ")" : "KILL " + id);
        }
        assertThatThrownBy(() -> st.executeQuery("SELECT 1")).isInstanceOf(SQLException.class);
        assertThatThrownBy(() -> num(a, "SELECT 8")).isInstanceOf(SQLException.class)
                .hasMessageContaining("took with it the session");
        assertThat(a.isClosed()).isTrue();
        a.close();
        try (Connection b = ds.getConnection()) {
            assertThat(num(b, "SELECT 9")).as("the pool goes on").isEqualTo(9);
        }
    }

    /**
     * Two threads make the first statement of one unbound handle at once, on a pool of two that
     * is busy: one waits in the pool, the other waits for it, and both go on with the one
     * connection the handle binds; once its statements and the handle are closed both connections
     * are back in the pool. Each thread used to bind its own, the later overwriting the earlier:
     * that one stayed lent to the handle past its close, lost to the pool for good (a pool of two
     * then served one borrower at a time, and timed out when the handle held the other).
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void twoThreadsBindingOneHandleAtOnceLeaveNoConnectionBehind(TestDatabase db) throws Exception {
        LoomPoolDataSource ds = pool(db, 2, null, null);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        Connection a = ds.getConnection();
        Connection x = ds.getConnection();
        Connection y = ds.getConnection();
        Statement busyX = x.createStatement(); // x and y hold the pool's two connections
        Statement busyY = y.createStatement();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Statement[] made = new Statement[2];
        Thread first = other("first", () -> made[0] = a.createStatement(), failure);
        Thread second = other("second", () -> made[1] = a.createStatement(), failure);
        eventually("both threads of A wait for a connection: one in the pool, the other for it",
                () -> ds.getPool().stats().pending() == 1 && waiting(first) && waiting(second));
        busyX.close();
        busyY.close();
        first.join(15_000);
        second.join(15_000);
        assertThat(failure.get()).isNull();
        assertThat(made).doesNotContainNull();
        boundOnlyForAReason(a);
        a.close(); // closes both statements and lets its connection go
        x.close();
        y.close();
        assertThat(ds.getBoundHandles()).as("no connection stays lent to a closed handle").isEmpty();
        assertThat(ds.getPool().stats().idle()).as("both connections back in the pool").isEqualTo(2);
    }

    private static boolean waiting(Thread t) {
        return t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING;
    }
}
