package dev.loompool.jdbc;

import static dev.loompool.jdbc.HandleAcrossThreadsTest.boundOnlyForAReason;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Attack on issue 37: a handle used from several threads. Borrower A spreads the use of its handle
 * over threads; borrower B, on a pool of one, then takes the connection. Checked after each
 * scenario: the invariant (bound means a reason is shown, or a statement runs), B's clean session,
 * A's committed work exactly, no lending while A's call is still on the connection, and no
 * exception but SQLException. The plain driver (a connection of its own) is the reference.
 */
class CrossThreadAttackTest extends BorrowerScenarios {

    private static Thread other(String name, HandleAcrossThreadsTest.ThrowingRunnable r, AtomicReference<Throwable> failure) {
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

    private LoomPoolDataSource one(TestDatabase db) {
        LoomPoolDataSource ds = pool(db, 1, db == TestDatabase.MARIADB ? "&allowMultiQueries=true" : null, null);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        return ds;
    }

    private static String sleep(TestDatabase db, int seconds) {
        return db == TestDatabase.POSTGRES ? "SELECT pg_sleep(" + seconds + ")" : "SELECT SLEEP(" + seconds + ")";
    }

    private static String sleepMarker(TestDatabase db, int seconds) {
        return db == TestDatabase.POSTGRES ? "pg_sleep(" + seconds + ")" : "SLEEP(" + seconds + ")";
    }

    private void table(TestDatabase db) throws SQLException {
        if (db == TestDatabase.POSTGRES) {
            pgTable();
        } else {
            mariaTable();
        }
    }

    private String committed(TestDatabase db) throws SQLException {
        return db == TestDatabase.POSTGRES ? String.valueOf(pgIds()) : mariaValues();
    }

    private static String none(TestDatabase db) {
        return db == TestDatabase.POSTGRES ? "null" : "none";
    }

    private static String inTx(TestDatabase db) {
        return db == TestDatabase.POSTGRES ? "SELECT txid_current_if_assigned()::text"
                : "SELECT coalesce((SELECT trx_id FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = CONNECTION_ID()), 'none')";
    }

    // ---- setClientInfo: a connection call with session effect, not counted as a run ----------------

    /**
     * FINDING. Thread "owner-A" calls {@code a.setClientInfo("ApplicationName", …)}: it binds
     * (the handle is bound already: a statement is open) and is stopped before the driver (the gate
     * widens the moment a thread waits there for pgjdbc's lock behind another thread's statement).
     * The caller closes its statement: nothing pins any more, the connection goes back. B borrows
     * it. A's call goes on: its {@code SET application_name} lands in B's session, and then A's
     * thread gets a NullPointerException (SessionCalls.sessionChanged reads h.physical, now null).
     * Plain driver: A's setClientInfo changes A's own session; B's connection keeps its own name.
     */
    @Test
    void pgSetClientInfoOvertakenByAStatementCloseOnAnotherThreadLandsInBsSession() throws Exception {
        LoomPoolDataSource ds = gated(pg(1));
        Connection a = ds.getConnection();
        Statement st = a.createStatement(); // binds; the statement pins
        String fresh;
        try (ResultSet rs = st.executeQuery("SELECT current_setting('application_name')")) {
            rs.next();
            fresh = rs.getString(1);
        }
        GateDriver.Held held = GateDriver.hold("setClientInfo", () -> a.setClientInfo("ApplicationName", "A-" + tag));
        st.close(); // the caller ends the only pin while owner-A's call is on its way to the connection
        LoomConnection h = a.unwrap(LoomConnection.class);
        assertThat(h.isBound()).as("the connection stays with A while A's call runs").isTrue();
        assertThat(h.pinReasons()).as("and says why").contains(PinReason.STATEMENT);
        held.release();
        assertThat(held.failure().get()).as("owner-A's setClientInfo (%s)", held.outcome()).isNull();
        boundOnlyForAReason(a);
        assertThat(h.pinReasons()).as("A's session carries its name: pinned").contains(PinReason.SESSION_STATE);
        a.close(); // the reset takes A's name off the session
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, "SHOW application_name")).as("B's session name after A's setClientInfo").isEqualTo(fresh);
        }
    }

    /**
     * FINDING, on the real driver without a gate: owner-A's setClientInfo waits for pgjdbc's lock
     * behind the helper's pg_sleep; the caller closes the helper's statement meanwhile (the release
     * is deferred to the end of the run); B waits for the pool's one connection. The run ends, the
     * connection goes back, and A's {@code SET application_name} (first in line for the driver's
     * lock) may land after the release: then A's thread gets a NullPointerException and the name
     * is on the pooled session. A race between the helper's release and A's round trip: it fails
     * only when the bug shows (seen in about half the runs here); never on correct code.
     */
    @Test
    void pgSetClientInfoWaitingBehindAnotherThreadsStatementLandsInBsSession() throws Exception {
        LoomPoolDataSource ds = pg(1);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        String fresh;
        try (Connection c = ds.getConnection()) {
            fresh = str(c, "SHOW application_name");
        }
        Connection a = ds.getConnection();
        Statement st = a.createStatement();
        AtomicReference<Throwable> helperFailed = new AtomicReference<>();
        AtomicReference<Throwable> infoFailed = new AtomicReference<>();
        Thread helper = other("helper", () -> st.executeQuery(sleep(TestDatabase.POSTGRES, 2)).close(), helperFailed);
        awaitRunning(TestDatabase.POSTGRES, "pg_sleep(2)");
        Thread info = other("info", () -> a.setClientInfo("ApplicationName", "A-" + tag), infoFailed);
        Thread.sleep(300); // "info" is bound and waits for pgjdbc's lock, held by the helper's query
        st.close(); // deferred: the helper's run still goes on
        helper.join(15_000);
        info.join(15_000);
        try {
            assertThat(infoFailed.get()).as("A's setClientInfo: only an SQLException may escape")
                    .matches(t -> t == null || t instanceof SQLException);
            boundOnlyForAReason(a);
            LoomConnection h = a.unwrap(LoomConnection.class);
            if (!h.isBound()) { // the release won the race: what does the next borrower see?
                try (Connection b = ds.getConnection()) {
                    assertThat(str(b, "SHOW application_name")).as("B's application_name").isEqualTo(fresh);
                }
            } else {
                assertThat(h.pinReasons()).contains(PinReason.SESSION_STATE);
            }
        } finally {
            a.close();
        }
    }

    /**
     * FINDING (no data lost; a connection used by two borrowers at once): a metadata call on
     * "meta" waits for pgjdbc's lock behind the helper's statement; the caller closes that statement,
     * so the connection goes back when the helper's run ends and B takes it; A's metadata query then
     * runs on B's connection, and its result set is tracked on A's handle, which holds no connection.
     */
    @Test
    void pgMetadataCallWaitingBehindAnotherThreadsStatementRunsOnBsConnection() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        Connection a = ds.getConnection();
        Statement st = a.createStatement();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread helper = other("helper", () -> st.executeQuery(sleep(TestDatabase.POSTGRES, 2)).close(), new AtomicReference<>());
        awaitRunning(TestDatabase.POSTGRES, "pg_sleep(2)");
        AtomicReference<Boolean> boundWhenItReturned = new AtomicReference<>();
        AtomicReference<Boolean> bHeldItThen = new AtomicReference<>();
        CountDownLatch bHolds = new CountDownLatch(1);
        CountDownLatch bMayGo = new CountDownLatch(1);
        Thread b = other("B", () -> {
            try (Connection c = ds.getConnection()) {
                run(c, "SELECT 1");
                bHolds.countDown();
                bMayGo.await(15, TimeUnit.SECONDS);
            }
        }, new AtomicReference<>());
        Thread meta = other("meta", () -> {
            try (ResultSet rs = a.getMetaData().getTables(null, null, table, null)) {
                bHeldItThen.set(bHolds.getCount() == 0);
                LoomConnection h = a.unwrap(LoomConnection.class);
                boundWhenItReturned.set(h.isBound());
                System.out.println("PROBE meta returned: A bound=" + h.isBound() + " reasons=" + h.pinReasons()
                        + " pool=" + ds.getPool().stats());
                while (rs.next()) {
                    // read
                }
            }
        }, failure);
        Thread.sleep(300); // "meta" waits for pgjdbc's lock behind the helper's query
        st.close(); // deferred to the end of the helper's run
        helper.join(15_000);
        meta.join(15_000);
        bMayGo.countDown();
        b.join(15_000);
        try {
            org.assertj.core.api.SoftAssertions soft = new org.assertj.core.api.SoftAssertions();
            soft.assertThat(failure.get()).isNull();
            soft.assertThat(boundWhenItReturned.get()).as("A's metadata result set is open: its handle holds a connection")
                    .isTrue();
            soft.assertAll();
        } finally {
            a.close();
        }
    }

    // ---- reclaimOnOwnerExit while a statement runs on another thread --------------------------------

    /**
     * FINDING (reclaimOnOwnerExit only; A is told, nothing is lost silently). The helper runs
     * {@code BEGIN; SELECT pg_sleep(5)} on A's handle; meanwhile a short-lived thread asks
     * {@code a.isClosed()} and ends: it is the handle's last user. A period later the reclaimer
     * takes the handle although the helper's statement still runs on it (Reclaimer
     * reclaimFromEndedOwner never looks at HandleLife.running()): it closes the running statement
     * (pgjdbc cancels it: the helper gets 57014) and returns the connection. DESIGN.md: "never
     * reclaims a handle that another thread used in that time". Plain driver: the sleep ends normally.
     */
    @Test
    void pgReclaimOnOwnerExitTakesAHandleWhoseStatementRunsOnAnotherThread() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        ds.setReclaimOnOwnerExit(true);
        ds.setAcquireTimeout(Duration.ofSeconds(15));
        Connection a = ds.getConnection();
        Statement st = a.createStatement();
        AtomicReference<Throwable> helperFailed = new AtomicReference<>();
        Thread helper = other("helper", () -> st.execute("BEGIN; SELECT pg_sleep(5)"), helperFailed);
        awaitRunning(TestDatabase.POSTGRES, "pg_sleep(5)");
        Thread asker = other("asker", a::isClosed, new AtomicReference<>());
        asker.join();
        helper.join(15_000); // pg_sleep(5) ends by itself, unless something cut it short
        try (Connection b = ds.getConnection()) {
            run(b, "INSERT INTO " + table + " VALUES (2)"); // autocommit: committed, as on the plain driver
            assertThat(b.unwrap(LoomConnection.class).pinReasons()).doesNotContain(PinReason.TRANSACTION);
        }
        helper.join(15_000);
        try {
            org.assertj.core.api.SoftAssertions soft = new org.assertj.core.api.SoftAssertions();
            soft.assertThat(helperFailed.get()).as("A's statement, running on the helper, ran to its end as on the plain "
                    + "driver (reclaimed connections: %d)", ds.getReclaimedConnections()).isNull();
            soft.assertThat(pgIds()).as("B's autocommitted insert").isEqualTo("2");
            soft.assertThat(helperFailed.get()).as("A's helper: only an SQLException").matches(t -> t == null || t instanceof SQLException);
            soft.assertAll();
        } finally {
            a.close();
        }
    }

    /**
     * FINDING (connection held longer, no data at stake; not specific to threads): MySQL
     * Connector/J with useCursorFetch, a cursor read in part and its statement closed: the handle
     * stays bound for TRANSACTION although the server has none open (plain driver: @@in_transaction=0).
     */
    @ParameterizedTest
    @EnumSource(Connector.class)
    void mariaStreamingResultSetClosedMidReadOnOneThread(Connector connector) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(connector == Connector.MARIADB_CONNECTOR_J,
                "MySQL Connector/J with useCursorFetch: the handle stays bound for TRANSACTION after a cursor closed "
                        + "mid-read (held longer, nothing lost): left for issue 38");
        LoomPoolDataSource ds = maria(connector, 1, connector == Connector.MYSQL_CONNECTOR_J ? "useCursorFetch=true" : null);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        Connection a = ds.getConnection();
        Statement st = a.createStatement();
        st.setFetchSize(5);
        ResultSet rs = st.executeQuery("SELECT seq FROM seq_1_to_2000");
        for (int n = 0; n < 20; n++) {
            rs.next();
        }
        st.close();
        LoomConnection h = a.unwrap(LoomConnection.class);
        String plain;
        try (Connection c = DriverManager.getConnection(connector.url("useCursorFetch=true"))) {
            Statement ps = c.createStatement();
            ps.setFetchSize(5);
            ResultSet prs = ps.executeQuery("SELECT seq FROM seq_1_to_2000");
            for (int n = 0; n < 20; n++) {
                prs.next();
            }
            ps.close();
            plain = str(c, "SELECT @@in_transaction");
        }
        assertThat(h.isBound()).as("one thread: A's handle pinned by %s; plain driver @@in_transaction=%s", h.pinReasons(), plain)
                .isFalse();
        a.close();
    }

    // ---- transactions across threads ------------------------------------------------------------

    /** Commit on the caller's thread while a helper's insert still runs: what the plain driver commits, and B clean. */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void commitWhileAnotherThreadsInsertRunsCommitsWhatThePlainDriverCommits(TestDatabase db) throws Exception {
        table(db);
        LoomPoolDataSource ds = one(db);
        String slowInsert = db == TestDatabase.POSTGRES
                ? "INSERT INTO " + table + " SELECT 2 FROM pg_sleep(1)"
                : "INSERT INTO " + table + " (v) SELECT 2 FROM (SELECT SLEEP(1)) s";
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            run(a, insertOf(db, 1));
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread helper = other("helper", () -> run(a, slowInsert), failure);
            awaitRunning(db, sleepMarker(db, 1));
            a.commit(); // waits for the driver's lock: commits both, as the plain driver does
            helper.join(15_000);
            assertThat(failure.get()).isNull();
            boundOnlyForAReason(a);
            assertThat(committed(db)).isEqualTo("1,2");
            run(a, insertOf(db, 3)); // a new transaction, never committed
            boundOnlyForAReason(a);
        }
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, inTx(db))).isEqualTo(db == TestDatabase.POSTGRES ? null : "none");
            assertThat(b.getAutoCommit()).isTrue();
        }
        assertThat(committed(db)).isEqualTo("1,2");
    }

    /** Begun on one thread, written on a future and an executor, rolled back on a third: nothing committed, B clean. */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aTransactionSpreadOverThreadsAndRolledBackElsewhereCommitsNothing(TestDatabase db) throws Exception {
        table(db);
        LoomPoolDataSource ds = one(db);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Connection a = ds.getConnection();
            pool.submit(() -> {
                a.setAutoCommit(false);
                return null;
            }).get(10, TimeUnit.SECONDS);
            CompletableFuture.runAsync(() -> {
                try {
                    run(a, insertOf(db, 1));
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }).get(10, TimeUnit.SECONDS);
            boundOnlyForAReason(a);
            assertThat(a.unwrap(LoomConnection.class).pinReasons()).contains(PinReason.TRANSACTION);
            pool.submit(() -> {
                run(a, insertOf(db, 2));
                return null;
            }).get(10, TimeUnit.SECONDS);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            other("rollbacker", a::rollback, failure).join();
            assertThat(failure.get()).isNull();
            boundOnlyForAReason(a);
            other("closer", a::close, failure).join();
            assertThat(failure.get()).isNull();
        } finally {
            pool.shutdownNow();
        }
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, inTx(db))).isEqualTo(db == TestDatabase.POSTGRES ? null : "none");
            assertThat(b.getAutoCommit()).isTrue();
        }
        assertThat(committed(db)).isEqualTo(none(db));
    }

    /** Two threads execute on the same handle at once in one transaction; committed on a third: both rows. */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void twoThreadsExecutingAtOnceInOneTransactionCommitBoth(TestDatabase db) throws Exception {
        table(db);
        LoomPoolDataSource ds = one(db);
        String slowInsert = db == TestDatabase.POSTGRES
                ? "INSERT INTO " + table + " SELECT 1 FROM pg_sleep(1)"
                : "INSERT INTO " + table + " (v) SELECT 1 FROM (SELECT SLEEP(1)) s";
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t1 = other("t1", () -> run(a, slowInsert), failure);
        awaitRunning(db, sleepMarker(db, 1));
        Thread t2 = other("t2", () -> run(a, insertOf(db, 2)), failure);
        t1.join(15_000);
        t2.join(15_000);
        assertThat(failure.get()).isNull();
        boundOnlyForAReason(a);
        other("committer", a::commit, failure).join();
        assertThat(failure.get()).isNull();
        a.close();
        assertThat(committed(db)).isEqualTo("1,2");
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, inTx(db))).isEqualTo(db == TestDatabase.POSTGRES ? null : "none");
        }
    }

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

    // ---- result sets read on another thread ------------------------------------------------------

    /** pgjdbc cursor (fetchSize, autocommit off) read on a helper thread, committed by the caller: B clean. */
    @Test
    void pgCursorReadOnAnotherThreadThenCommittedLetsGo() throws Exception {
        LoomPoolDataSource ds = pg(1);
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        Statement st = a.createStatement();
        st.setFetchSize(10);
        ResultSet rs = st.executeQuery("SELECT g FROM generate_series(1, 1000) g");
        long sum = CompletableFuture.supplyAsync(() -> {
            long s = 0;
            try {
                while (rs.next()) {
                    s += rs.getLong(1);
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            return s;
        }).get(30, TimeUnit.SECONDS);
        assertThat(sum).isEqualTo(500500);
        boundOnlyForAReason(a);
        other("closer", st::close, new AtomicReference<>()).join();
        boundOnlyForAReason(a);
        a.commit();
        boundOnlyForAReason(a);
        assertThat(a.unwrap(LoomConnection.class).isBound()).as("autocommit off: the next transaction pins only when it begins")
                .isIn(true, false);
        a.close();
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, inTx(TestDatabase.POSTGRES))).isNull();
        }
    }

    /**
     * (With MySQL Connector/J it fails for the reason of mariaStreamingResultSetClosedMidReadOnOneThread: FINDING, held longer.)
     * MariaDB streaming result set (fetchSize) read on a helper, the statement closed by a watchdog
     * in the middle: once the helper's read is refused, the connection goes to B, which is clean.
     */
    @ParameterizedTest
    @EnumSource(Connector.class)
    void mariaStreamingResultSetClosedByAWatchdogMidReadLetsGoCleanly(Connector connector) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(connector == Connector.MARIADB_CONNECTOR_J,
                "MySQL Connector/J with useCursorFetch: the handle stays bound for TRANSACTION after a cursor closed "
                        + "mid-read (held longer, nothing lost): left for issue 38");
        LoomPoolDataSource ds = maria(connector, 1, connector == Connector.MYSQL_CONNECTOR_J ? "useCursorFetch=true" : null);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        Connection a = ds.getConnection();
        Statement st = a.createStatement();
        st.setFetchSize(5);
        ResultSet rs = st.executeQuery("SELECT seq FROM seq_1_to_2000");
        CountDownLatch half = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread reader = other("reader", () -> {
            int n = 0;
            try {
                while (rs.next()) {
                    if (++n == 20) {
                        half.countDown();
                        closed.await(10, TimeUnit.SECONDS);
                    }
                }
            } catch (SQLException refused) {
                // closed under it: as the plain driver, a closed result set refuses
            }
        }, failure);
        half.await(10, TimeUnit.SECONDS);
        other("watchdog", st::close, failure).join();
        closed.countDown();
        reader.join(15_000);
        assertThat(failure.get()).isNull();
        boundOnlyForAReason(a);
        assertThat(a.unwrap(LoomConnection.class).isBound()).as("A's handle, pinned by %s",
                a.unwrap(LoomConnection.class).pinReasons()).isFalse();
        try (Connection b = ds.getConnection()) {
            assertThat(num(b, "SELECT 7")).isEqualTo(7);
            assertThat(str(b, inTx(TestDatabase.MARIADB))).isEqualTo("none");
        }
        a.close();
    }

    /** Plain driver reference for the setClientInfo probes: a name set on one connection never reaches another. */
    @Test
    void plainDriverSetClientInfoStaysOnItsOwnSession() throws Exception {
        try (Connection a = DriverManager.getConnection(TestDatabase.POSTGRES.url());
                Connection b = DriverManager.getConnection(TestDatabase.POSTGRES.url())) {
            String fresh = str(b, "SHOW application_name");
            a.setClientInfo("ApplicationName", "A-" + tag);
            assertThat(str(b, "SHOW application_name")).isEqualTo(fresh);
            assertThat(str(a, "SHOW application_name")).isEqualTo("A-" + tag);
        }
    }
}
