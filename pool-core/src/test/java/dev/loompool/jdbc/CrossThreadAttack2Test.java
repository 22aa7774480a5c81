package dev.loompool.jdbc;

import static dev.loompool.jdbc.HandleAcrossThreadsTest.boundOnlyForAReason;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Second round of attacks on a handle's binding across threads (DESIGN.md §4 "One state machine,
 * every thread", README "A handle on many threads"), on the real servers. Each test is one attack
 * in the form: borrower A spreads its handle over threads X/Y and races itself; borrower B, the
 * next user of the pool's only physical connection, then looks. Checked: what A committed (never
 * uncommitted work), what B sees (a clean session, its own work intact), the invariant (a bound
 * handle shows a pin reason or has a statement running), the pool free again within 2 s, and the
 * open-handle count back to 0. The plain driver and HikariCP are the references, named per test.
 *
 * <p>The two bugs this class found (a savepoint call and a cancel, each overtaken by a close on
 * another thread, that reached the next borrower) are fixed; their tests run.
 */
class CrossThreadAttack2Test extends BorrowerScenarios {

    private final List<AutoCloseable> extras = new ArrayList<>();

    @AfterEach
    void closeExtras() throws Exception {
        for (int i = extras.size() - 1; i >= 0; i--) {
            extras.get(i).close();
        }
    }

    // ---- helpers ----------------------------------------------------------------------------------

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    private static Thread other(String name, ThrowingRunnable r, AtomicReference<Throwable> failure) {
        Thread t = new Thread(() -> {
            try {
                r.run();
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
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

    private HikariDataSource hikari(String url, String driverClass) {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(url);
        if (driverClass != null) {
            cfg.setDriverClassName(driverClass);
        }
        cfg.setMaximumPoolSize(1);
        cfg.setMinimumIdle(0);
        cfg.setConnectionTimeout(10_000);
        cfg.setPoolName("atk2-hikari");
        HikariDataSource ds = new HikariDataSource(cfg);
        extras.add(ds);
        return ds;
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

    /** The session's open transaction, as the server says: null (PostgreSQL) or "none" (MariaDB) when none. */
    private static String inTx(TestDatabase db) {
        return db == TestDatabase.POSTGRES ? "SELECT txid_current_if_assigned()::text"
                : "SELECT coalesce((SELECT trx_id FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = CONNECTION_ID()), 'none')";
    }

    private static String noTx(TestDatabase db) {
        return db == TestDatabase.POSTGRES ? null : "none";
    }

    private static String sleep(TestDatabase db, int seconds, String marker) {
        return (db == TestDatabase.POSTGRES ? "SELECT pg_sleep(" : "SELECT SLEEP(") + seconds + ") AS " + marker;
    }

    /** An insert of v that takes {@code seconds}: its text contains {@code marker}. */
    private String slowInsert(TestDatabase db, int v, int seconds, String marker) {
        return db == TestDatabase.POSTGRES
                ? "INSERT INTO " + table + " SELECT " + v + " AS " + marker + " FROM pg_sleep(" + seconds + ")"
                : "INSERT INTO " + table + " (v) SELECT " + v + " AS " + marker + " FROM (SELECT SLEEP(" + seconds + ")) s";
    }

    /** A second borrower gets the pool's connection and uses it within 2 s. */
    private static void freeWithinTwoSeconds(DataSource ds) throws Exception {
        long seven = CompletableFuture.supplyAsync(() -> {
            try (Connection c = ds.getConnection()) {
                return num(c, "SELECT 7");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }, r -> new Thread(r, "second-borrower").start()).get(2, TimeUnit.SECONDS);
        assertThat(seven).isEqualTo(7);
    }

    /** B's session as a fresh one has it: no transaction, autocommit, the default isolation. */
    private static void cleanSession(TestDatabase db, Connection b) throws SQLException {
        assertThat(str(b, inTx(db))).as("B's session has no transaction open").isEqualTo(noTx(db));
        assertThat(b.getAutoCommit()).as("B's autocommit").isTrue();
        if (db == TestDatabase.POSTGRES) {
            assertThat(str(b, "SHOW transaction_isolation")).as("B's isolation").isEqualTo("read committed");
            assertThat(str(b, "SHOW search_path")).as("B's search_path").isEqualTo("\"$user\", public");
        } else {
            assertThat(str(b, "SELECT @@session.tx_isolation")).as("B's isolation").isEqualTo("REPEATABLE-READ");
            assertThat(str(b, "SELECT @@session.autocommit")).as("B's autocommit on the server").isEqualTo("1");
        }
    }

    // =================================================================================================
    // 1. Savepoint calls are transaction calls too: overtaken by a watchdog's close
    // =================================================================================================

    /**
     * A (autocommit off) inserts 1, sets savepoint "s1", inserts 3; thread owner-A calls
     * {@code a.rollback(sp)}, stopped by the gate before the driver (a thread preempted between
     * loompool's bind() and the driver's lock behaves the same). The watchdog (this thread) closes A:
     * the release check rolls A back and lends the connection. B begins a transaction, sets its own
     * savepoint "s1" and inserts 2. A's call goes on: {@code ROLLBACK TO SAVEPOINT s1} runs in B's
     * transaction and silently undoes B's insert; B commits nothing.
     *
     * <p>Plain driver: A's rollback(sp) after close throws "connection closed"; B's own connection
     * commits 2. loompool protects commit(), rollback() and the setters ({@code PhysicalConnection.enter},
     * a connection whose binding ended under such a call is retired), but not the savepoint calls.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void rollbackToSavepointOvertakenByAWatchdogCloseNeverReachesBsTransaction(TestDatabase db) throws Exception {
        table(db);
        LoomPoolDataSource ds = gated(one(db));
        String bSaw = savepointRollbackOvertakenByClose(db, ds);
        assertThat(bSaw).as("B inserted 2 after its savepoint s1 and committed; A's rollback(sp) came after A's close")
                .isEqualTo("committed=2, B's commit: ok");
        assertThat(ds.getOpenHandles()).isZero();
        freeWithinTwoSeconds(ds);
    }

    /**
     * The same race through HikariCP (the gate in front of the same driver): the reference. What
     * HikariCP does is recorded, not judged: it has no guard for a call under way at close either.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void hikariReferenceRollbackToSavepointOvertakenByAWatchdogClose(TestDatabase db) throws Exception {
        table(db);
        HikariDataSource ds = hikari(GateDriver.PREFIX + db.url() + (db == TestDatabase.MARIADB ? "&allowMultiQueries=true" : ""),
                GateDriver.class.getName());
        String bSaw = savepointRollbackOvertakenByClose(db, ds);
        System.out.println("PROBE hikari " + db + " savepoint race: " + bSaw);
        assertThat(bSaw).isNotNull();
    }

    /** @return "committed=…, B's commit: …" after the race */
    private String savepointRollbackOvertakenByClose(TestDatabase db, DataSource ds) throws Exception {
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        run(a, insertOf(db, 1));
        Savepoint sp = a.setSavepoint("s1");
        run(a, insertOf(db, 3));
        GateDriver.Held held = GateDriver.hold("rollback", () -> a.rollback(sp));
        a.close(); // the watchdog
        String bCommit;
        try (Connection b = ds.getConnection()) {
            b.setAutoCommit(false);
            b.setSavepoint("s1");
            run(b, insertOf(db, 2));
            held.release();
            try {
                b.commit();
                bCommit = "ok";
            } catch (SQLException e) {
                bCommit = "threw " + e.getMessage();
                b.rollback();
            }
        }
        assertThat(held.failure().get()).as("A's rollback(sp): only an SQLException (%s)", held.outcome())
                .matches(t -> t == null || t instanceof SQLException);
        return "committed=" + committed(db) + ", B's commit: " + bCommit;
    }

    // =================================================================================================
    // 2. Statement.cancel() from a watchdog, in flight while the statement ends and the connection goes on
    // =================================================================================================

    /**
     * A TCP proxy in front of a server: forwards every connection, but once {@link #holdNew()} is
     * called, a new connection waits (unconnected upstream) until {@link #letGo()}. MariaDB
     * Connector/J's {@code Statement.cancel()} opens a new connection to the same host and port to
     * send {@code KILL QUERY <thread id>}: this widens, deterministically, the time that takes.
     */
    static final class HoldingProxy implements AutoCloseable {
        private final ServerSocket server;
        private final int targetPort;
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();
        private volatile CountDownLatch hold;
        final CountDownLatch held = new CountDownLatch(1);
        private volatile boolean closed;

        HoldingProxy(int targetPort) throws IOException {
            this.targetPort = targetPort;
            this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread acceptor = new Thread(this::accept, "holding-proxy-accept");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return server.getLocalPort();
        }

        void holdNew() {
            hold = new CountDownLatch(1);
        }

        void letGo() {
            CountDownLatch h = hold;
            if (h != null) {
                h.countDown();
            }
        }

        private void accept() {
            while (!closed) {
                try {
                    Socket client = server.accept();
                    sockets.add(client);
                    CountDownLatch h = hold;
                    Thread t = new Thread(() -> {
                        try {
                            if (h != null) {
                                held.countDown();
                                h.await(30, TimeUnit.SECONDS);
                            }
                            Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                            sockets.add(upstream);
                            pump(client, upstream);
                            pump(upstream, client);
                        } catch (IOException | InterruptedException e) {
                            // closed
                        }
                    }, "holding-proxy-connect");
                    t.setDaemon(true);
                    t.start();
                } catch (IOException e) {
                    if (closed) {
                        return;
                    }
                }
            }
        }

        private void pump(Socket from, Socket to) {
            Thread t = new Thread(() -> {
                byte[] buffer = new byte[8192];
                try {
                    InputStream in = from.getInputStream();
                    OutputStream out = to.getOutputStream();
                    for (int n; (n = in.read(buffer)) >= 0; ) {
                        out.write(buffer, 0, n);
                        out.flush();
                    }
                    to.shutdownOutput();
                } catch (IOException e) {
                    // closed
                }
            }, "holding-proxy-pump");
            t.setDaemon(true);
            t.start();
        }

        @Override
        public void close() throws IOException {
            closed = true;
            server.close();
            for (Socket s : sockets) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }
    }

    private static int mariaPort() {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("//[^:/]+:(\\d+)").matcher(TestDatabase.MARIADB.url());
        return m.find() ? Integer.parseInt(m.group(1)) : 3306;
    }

    private static String throughProxy(String url, int port) {
        return url.replaceFirst("//[^/]+/", "//127.0.0.1:" + port + "/");
    }

    /**
     * Thread X runs A's {@code SELECT SLEEP(2)}; the watchdog W calls {@code st.cancel()} while it
     * runs (MariaDB Connector/J then opens a connection of its own to send
     * {@code KILL QUERY <A's thread id>}; the proxy holds that connect). A's sleep ends by itself;
     * X closes its statement, which ends A's only pin: the connection goes back and B borrows it and
     * runs {@code SELECT SLEEP(3)}. W's connect goes on: the KILL QUERY hits B's query, whose SLEEP
     * returns 1 (interrupted) instead of 0.
     *
     * <p>loompool's {@code LogicalStatement.cancel()} checks that the binding still holds, then
     * calls the driver's cancel, which is not counted as a run of the handle: the release that X's
     * close asks for is not deferred until the cancel returns. README: "Never on a connection its
     * handle let go of: pgjdbc and MariaDB cancel by the connection's backend, which may be running
     * the next borrower's query now." Plain driver: the kill can only reach A's own session. HikariCP
     * (reference test below): A's handle keeps the connection after the statement closed; B waits
     * until A closes it, and B's query runs to its end.
     *
     * <p>MySQL Connector/J, tried the same way (not kept as a test): its cancel, resumed after the
     * statement was closed, throws a NullPointerException from the driver ({@code this.session} of
     * the closed statement is null) and sends no KILL, so B's query is not reached; the NPE is the
     * driver's own behaviour on a statement closed under its cancel, and loompool passes it through.
     */
    @Test
    void mariaCancelInFlightWhenTheStatementEndsNeverReachesBsQuery() throws Exception {
        HoldingProxy proxy = new HoldingProxy(mariaPort());
        extras.add(proxy);
        LoomPoolDataSource ds = one(TestDatabase.MARIADB);
        ds.setJdbcUrl(throughProxy(TestDatabase.MARIADB.url(), proxy.port()));
        String bSaw = cancelInFlight(ds, a -> { }, true);
        assertThat(bSaw).as("B's SELECT SLEEP(3) while A's cancel was in flight").isEqualTo("B's sleep=0");
    }

    /** HikariCP, same race: A's handle holds the connection until A closes it (after W's cancel returned). */
    @Test
    void hikariReferenceCancelInFlightWhenTheStatementEnds() throws Exception {
        HoldingProxy proxy = new HoldingProxy(mariaPort());
        extras.add(proxy);
        HikariDataSource ds = hikari(throughProxy(TestDatabase.MARIADB.url(), proxy.port()), null);
        String bSaw = cancelInFlight(ds, a -> { }, false);
        assertThat(bSaw).isEqualTo("B's sleep=0");
    }

    /**
     * The cancel race. {@code bBeforeCancelEnds}: B borrows and runs while W's cancel is held (for
     * loompool, where the statement's close lets go of the connection); else A closes its handle only
     * after W's cancel returned, and B borrows then (HikariCP: the handle holds the connection).
     */
    private String cancelInFlight(DataSource ds, BorrowerScenarios.Use warm, boolean bBeforeCancelEnds) throws Exception {
        try (Connection c = ds.getConnection()) {
            warm.on(c);
            run(c, "SELECT 1"); // the pool's one connection exists, through the proxy
        }
        HoldingProxy proxy = (HoldingProxy) extras.get(0);
        Connection a = ds.getConnection();
        Statement st = a.createStatement();
        String aMarker = "a_sleep_" + tag;
        AtomicReference<Long> aSlept = new AtomicReference<>();
        AtomicReference<Throwable> xFailed = new AtomicReference<>();
        Thread x = other("X", () -> {
            try (ResultSet rs = st.executeQuery(sleep(TestDatabase.MARIADB, 2, aMarker))) {
                rs.next();
                aSlept.set(rs.getLong(1));
            }
        }, xFailed);
        awaitRunning(TestDatabase.MARIADB, aMarker);
        proxy.holdNew();
        AtomicReference<Throwable> wFailed = new AtomicReference<>();
        Thread w = other("W", st::cancel, wFailed);
        assertThat(proxy.held.await(10, TimeUnit.SECONDS)).as("W's cancel connects").isTrue();
        x.join(15_000); // A's sleep ends by itself: the KILL is still on its way
        st.close(); // A's only pin ends
        if (ds instanceof LoomPoolDataSource) {
            boundOnlyForAReason(a);
        }
        String bMarker = "b_sleep_" + tag;
        AtomicReference<Long> bSlept = new AtomicReference<>();
        AtomicReference<Throwable> bFailed = new AtomicReference<>();
        Thread b;
        if (bBeforeCancelEnds) {
            b = other("B", () -> {
                try (Connection bc = ds.getConnection()) {
                    bSlept.set(num(bc, sleep(TestDatabase.MARIADB, 3, bMarker)));
                }
            }, bFailed);
            // The cancel is a run of A's handle: the connection goes back only once it returned,
            // so B waits for it meanwhile (the pool has one connection).
            LoomPoolDataSource loom = (LoomPoolDataSource) ds;
            eventually("B waits for the pool's one connection", () -> loom.getPool().stats().pending() == 1);
            assertThat(loom.getPool().stats().inUse()).as("A's connection, held for the cancel in flight").isEqualTo(1);
            proxy.letGo();
            w.join(15_000);
            awaitRunning(TestDatabase.MARIADB, bMarker);
        } else {
            proxy.letGo();
            w.join(15_000);
            a.close();
            b = other("B", () -> {
                try (Connection bc = ds.getConnection()) {
                    bSlept.set(num(bc, sleep(TestDatabase.MARIADB, 3, bMarker)));
                }
            }, bFailed);
        }
        b.join(15_000);
        a.close();
        System.out.println("PROBE cancel race on " + ds.getClass().getSimpleName() + ": A's sleep=" + aSlept.get()
                + " (X " + xFailed.get() + "), W " + wFailed.get() + ", B " + bFailed.get());
        return bFailed.get() != null ? "B threw " + bFailed.get() : "B's sleep=" + bSlept.get();
    }

    // =================================================================================================
    // 3. Connection.abort(executor) with a slow executor while another thread's insert runs
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
    // 4. Session SQL under way on a helper when a watchdog closes the handle
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

    /**
     * A temporary table and a session advisory lock taken by A on a CompletableFuture, the handle
     * closed on a third thread: B sees neither (no temp table, the lock is free for another
     * session), and A's handle showed SESSION_STATE while bound.
     */
    @Test
    void pgTempTableAndAdvisoryLockTakenOnAFutureClosedOnAThirdThreadAreGoneForB() throws Exception {
        LoomPoolDataSource ds = one(TestDatabase.POSTGRES);
        Connection a = ds.getConnection();
        long key = Math.abs(tag.hashCode());
        CompletableFuture.runAsync(() -> {
            try {
                run(a, "CREATE TEMP TABLE atk2_tmp_" + tag + " (x int)");
                run(a, "SELECT pg_advisory_lock(" + key + ")");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }).get(10, TimeUnit.SECONDS);
        boundOnlyForAReason(a);
        assertThat(a.unwrap(LoomConnection.class).pinReasons()).contains(PinReason.SESSION_STATE);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        other("closer", a::close, failure).join(15_000);
        assertThat(failure.get()).isNull();
        try (Connection b = ds.getConnection()) {
            assertThat(num(b, "SELECT count(*) FROM pg_class WHERE relname = 'atk2_tmp_" + tag + "' AND relpersistence = 't'"))
                    .as("A's temp table, seen by B").isZero();
            cleanSession(TestDatabase.POSTGRES, b);
        }
        try (Connection other = TestDatabase.POSTGRES.admin()) {
            assertThat(str(other, "SELECT pg_try_advisory_lock(" + key + ")::text")).as("A's session lock is released").isEqualTo("true");
        }
        assertThat(ds.getOpenHandles()).isZero();
    }

    /**
     * Isolation set on one thread by JDBC ({@code setTransactionIsolation}) and on another by SQL
     * ({@code SET SESSION …}), statements on a third, the handle closed on a fourth: B's session has
     * the default isolation. Plain driver: the settings stay on A's own session.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void isolationSetByJdbcAndBySqlOnTwoThreadsClosedOnAThirdIsResetForB(TestDatabase db) throws Exception {
        LoomPoolDataSource ds = one(db);
        Connection a = ds.getConnection();
        CompletableFuture.runAsync(() -> {
            try {
                a.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }).get(10, TimeUnit.SECONDS);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        other("sql", () -> run(a, db == TestDatabase.POSTGRES
                ? "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ"
                : "SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED"), failure).join(15_000);
        other("reader", () -> assertThat(a.getTransactionIsolation()).isIn(Connection.TRANSACTION_REPEATABLE_READ,
                Connection.TRANSACTION_READ_UNCOMMITTED), failure).join(15_000);
        boundOnlyForAReason(a);
        other("closer", a::close, failure).join(15_000);
        assertThat(failure.get()).isNull();
        try (Connection b = ds.getConnection()) {
            cleanSession(db, b);
            assertThat(b.getTransactionIsolation()).as("B's isolation, as the handle says").isEqualTo(
                    db == TestDatabase.POSTGRES ? Connection.TRANSACTION_READ_COMMITTED : Connection.TRANSACTION_REPEATABLE_READ);
        }
        assertThat(ds.getOpenHandles()).isZero();
    }

    // =================================================================================================
    // 5. A result set read on another thread while the creator closes the handle, mid-transaction
    // =================================================================================================

    /**
     * A (autocommit off) inserts 1, then opens a pgjdbc cursor (fetchSize 10) that thread R reads;
     * after 20 rows R waits, the creator closes the handle, and R goes on: R's reads are refused
     * (an SQLException) or end, never answered from B's session; A's insert is never committed; B is
     * clean within 2 s. Plain driver: close rolls back; the result set is closed.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aResultSetReadOnAnotherThreadWhileTheCreatorClosesTheHandleCommitsNothing(TestDatabase db) throws Exception {
        table(db);
        LoomPoolDataSource ds = one(db);
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        run(a, insertOf(db, 1));
        Statement st = a.createStatement();
        st.setFetchSize(10);
        ResultSet rs = st.executeQuery(db == TestDatabase.POSTGRES ? "SELECT g FROM generate_series(1, 2000) g"
                : "SELECT seq FROM seq_1_to_2000");
        CountDownLatch twenty = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        AtomicReference<Throwable> rFailed = new AtomicReference<>();
        AtomicReference<Integer> afterClose = new AtomicReference<>(0);
        Thread r = other("R", () -> {
            int n = 0;
            while (rs.next()) {
                if (++n == 20) {
                    twenty.countDown();
                    closed.await(10, TimeUnit.SECONDS);
                } else if (n > 20) {
                    afterClose.set(afterClose.get() + 1);
                }
            }
        }, rFailed);
        assertThat(twenty.await(10, TimeUnit.SECONDS)).isTrue();
        a.close();
        closed.countDown();
        r.join(15_000);
        try (Connection b = ds.getConnection()) {
            cleanSession(db, b);
        }
        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(rFailed.get()).as("R after the close: refused with an SQLException (read %d more rows)", afterClose.get())
                .isInstanceOf(SQLException.class);
        soft.assertThat(committed(db)).as("A's uncommitted insert").isEqualTo(none(db));
        soft.assertAll();
        freeWithinTwoSeconds(ds);
        assertThat(ds.getOpenHandles()).isZero();
    }

    // =================================================================================================
    // 6. Query timeout inside a transaction on a helper, then a watchdog's close
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

    // =================================================================================================
    // 7. closeOnCompletion: made on main, run on a helper, its result set closed on a third thread
    // =================================================================================================

    /**
     * The statement is made on the caller's thread with closeOnCompletion; X executes it; the
     * result set is closed on thread Z, which closes the statement through the driver: the pin ends,
     * the handle lets go, and B gets the connection within 2 s. The handle stays usable.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void closeOnCompletionWithTheResultSetClosedOnAThirdThreadLetsGo(TestDatabase db) throws Exception {
        LoomPoolDataSource ds = one(db);
        try (Connection a = ds.getConnection()) {
            Statement st = a.createStatement();
            st.closeOnCompletion();
            AtomicReference<ResultSet> rs = new AtomicReference<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            other("X", () -> rs.set(st.executeQuery("SELECT 5")), failure).join(15_000);
            assertThat(failure.get()).isNull();
            boundOnlyForAReason(a);
            other("Z", () -> {
                rs.get().next();
                rs.get().close();
            }, failure).join(15_000);
            assertThat(failure.get()).isNull();
            boundOnlyForAReason(a);
            assertThat(st.isClosed()).as("the driver closed the statement with its result set").isTrue();
            assertThat(a.unwrap(LoomConnection.class).isBound()).as("A's pins: %s", a.unwrap(LoomConnection.class).pinReasons())
                    .isFalse();
            freeWithinTwoSeconds(ds);
            assertThat(num(a, "SELECT 6")).isEqualTo(6);
        }
        assertThat(ds.getOpenHandles()).isZero();
    }
}
