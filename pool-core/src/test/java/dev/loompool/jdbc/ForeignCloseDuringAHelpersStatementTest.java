package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.ThreadedBorrowerScenarios.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static dev.loompool.jdbc.HandleAcrossThreadsTest.boundOnlyForAReason;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A watchdog closes or aborts A's handle while a helper thread's statement runs in A's transaction,
 * or just after its query timeout (DESIGN.md §4 "One state machine, every thread", "Reset on
 * return"): nothing of A's is committed, the helper gets an SQLException or ends, and B gets a clean
 * session.
 */
class ForeignCloseDuringAHelpersStatementTest extends OnRealDatabases {

    /**
     * A handle closed by a watchdog while a helper's insert still runs in its transaction: never
     * committed (the plain driver's close does not commit), and B gets a clean connection after.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aWatchdogCloseDuringAnotherThreadsInsertCommitsNothing(TestDatabase db) throws Exception {
        table(db);
        LoomPoolDataSource ds = one(db);
        String slowInsert = db == TestDatabase.POSTGRES
                ? "INSERT INTO " + table + " SELECT 2 FROM pg_sleep(1)"
                : "INSERT INTO " + table + " (v) SELECT 2 FROM (SELECT SLEEP(1)) s";
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        run(a, insertOf(db, 1));
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread helper = other("helper", () -> run(a, slowInsert), failure);
        awaitRunning(db, sleepMarker(db, 1));
        other("watchdog", a::close, new AtomicReference<>()).join(15_000);
        helper.join(15_000);
        assertThat(failure.get()).satisfiesAnyOf(t -> assertThat(t).isNull(), t -> assertThat(t).isInstanceOf(SQLException.class));
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, inTx(db))).isEqualTo(db == TestDatabase.POSTGRES ? null : "none");
            run(b, "SELECT 1");
        }
        assertThat(committed(db)).isEqualTo(none(db));
    }

    // =================================================================================================
    // Connection.abort(executor) with a slow executor while another thread's insert runs
    // =================================================================================================

    /**
     * A (autocommit off) inserts 1; thread X runs a 1 s insert of 2 in the same transaction; the
     * watchdog calls {@code a.abort(executor)} with an executor that runs nothing until the test says
     * so (the driver's socket close is queued). Nothing of A's may be committed, X gets an
     * SQLException or ends, B gets a clean session within 2 s, and the open-handle count is 0.
     * Plain driver: abort ends the session; the server rolls back.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void abortWithAHeldExecutorWhileAnotherThreadsInsertRunsCommitsNothing(TestDatabase db) throws Exception {
        table(db);
        LoomPoolDataSource ds = one(db);
        ConcurrentLinkedQueue<Runnable> queued = new ConcurrentLinkedQueue<>();
        Executor later = queued::add;
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        run(a, insertOf(db, 1));
        String marker = "ab_" + tag;
        AtomicReference<Throwable> xFailed = new AtomicReference<>();
        Thread x = other("X", () -> run(a, slowInsert(db, 2, 1, marker)), xFailed);
        awaitRunning(db, marker);
        AtomicReference<Throwable> wFailed = new AtomicReference<>();
        other("watchdog", () -> a.abort(later), wFailed).join(15_000);
        try (Connection b = ds.getConnection()) {
            cleanSession(db, b);
            assertThat(a.isClosed()).isTrue();
        }
        x.join(15_000);
        queued.forEach(Runnable::run);
        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(wFailed.get()).as("abort").isNull();
        soft.assertThat(xFailed.get()).as("X: only an SQLException").matches(t -> t == null || t instanceof SQLException);
        soft.assertThat(committed(db)).as("A's uncommitted rows").isEqualTo(none(db));
        soft.assertAll();
        freeWithinTwoSeconds(ds);
        a.close();
        assertThat(ds.getOpenHandles()).isZero();
    }

    // =================================================================================================
    // Session SQL under way on a helper when a watchdog closes the handle
    // =================================================================================================

    /**
     * Thread X runs A's session-changing SQL that takes 1 s (PostgreSQL: {@code set_config('search_path',
     * …, false)} beside pg_sleep; MariaDB: a user variable set by a SELECT beside SLEEP); while it runs,
     * the watchdog closes A. The close waits for the statement, the reset then undoes it: B's session
     * never carries A's search_path / @variable. Plain driver: A's session only.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void sessionSqlRunningOnAHelperWhenAWatchdogClosesNeverReachesB(TestDatabase db) throws Exception {
        LoomPoolDataSource ds = one(db);
        String marker = "ss_" + tag;
        String sql = db == TestDatabase.POSTGRES
                ? "SELECT set_config('search_path', 'a_" + tag + "', false), pg_sleep(1) AS " + marker
                : "SELECT @atk2_" + tag + " := 42, SLEEP(1) AS " + marker;
        Connection a = ds.getConnection();
        AtomicReference<Throwable> xFailed = new AtomicReference<>();
        Thread x = other("X", () -> run(a, sql), xFailed);
        awaitRunning(db, marker);
        AtomicReference<Throwable> wFailed = new AtomicReference<>();
        other("watchdog", a::close, wFailed).join(15_000);
        x.join(15_000);
        try (Connection b = ds.getConnection()) {
            cleanSession(db, b);
            if (db == TestDatabase.MARIADB) {
                assertThat(str(b, "SELECT @atk2_" + tag)).as("A's user variable in B's session").isNull();
            }
        }
        assertThat(wFailed.get()).isNull();
        assertThat(xFailed.get()).matches(t -> t == null || t instanceof SQLException);
        freeWithinTwoSeconds(ds);
        assertThat(ds.getOpenHandles()).isZero();
    }

    // =================================================================================================
    // Query timeout inside a transaction on a helper, then a watchdog's close
    // =================================================================================================

    /**
     * A (autocommit off) inserts 1; X runs a 3 s sleep with {@code setQueryTimeout(1)} (pgjdbc: its
     * timer thread cancels; MariaDB: max_statement_time on the server); once X has its timeout, the
     * watchdog closes A. Nothing committed; B clean; the pool's connection free within 2 s.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void queryTimeoutInATransactionOnAHelperThenAWatchdogCloseCommitsNothing(TestDatabase db) throws Exception {
        table(db);
        LoomPoolDataSource ds = one(db);
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        run(a, insertOf(db, 1));
        Statement st = a.createStatement();
        st.setQueryTimeout(1);
        AtomicReference<Throwable> xFailed = new AtomicReference<>();
        other("X", () -> st.executeQuery(sleep(db, 3, "qt_" + tag)).close(), xFailed).join(15_000);
        assertThat(xFailed.get()).as("the timeout stopped the sleep").isInstanceOf(SQLException.class);
        boundOnlyForAReason(a);
        assertThat(a.unwrap(LoomConnection.class).isBound()).as("the transaction keeps A's connection").isTrue();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        other("watchdog", a::close, failure).join(15_000);
        assertThat(failure.get()).isNull();
        try (Connection b = ds.getConnection()) {
            cleanSession(db, b);
        }
        assertThat(committed(db)).isEqualTo(none(db));
        freeWithinTwoSeconds(ds);
        assertThat(ds.getOpenHandles()).isZero();
    }
}
