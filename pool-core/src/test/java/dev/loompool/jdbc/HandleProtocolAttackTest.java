package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLClientInfoException;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Attacks on the handle's end and release protocol (HandleLife.end/finish/settledEnd, the release
 * that waits for another thread's run, the savepoint calls counted as under way), on the stub
 * driver behind {@link DeepGate}: a proxy driver that stops one thread at one named method of the
 * connection, a statement or the metadata (GateDriver stops connection methods only), and can make
 * one named method throw. Each test: a pool of one connection, borrower A racing itself across
 * threads, then the invariants: the connection goes back exactly once and only when nothing of A
 * runs on it, a second borrower gets it within a generous bound, the open-handle count is back to
 * 0, no thread hangs (assertTimeoutPreemptively).
 */
class HandleProtocolAttackTest extends StubSupport {

    private static final Duration HANG = Duration.ofSeconds(30);

    @AfterEach
    void disarm() {
        DeepGate.gate = null;
        DeepGate.fault = null;
    }

    // ---- the proxy driver -----------------------------------------------------------------------

    /** {@code jdbc:deepgate:<stub URL>}: stops a thread at a method of any JDBC object the driver hands out. */
    public static final class DeepGate implements Driver {

        static final String PREFIX = "jdbc:deepgate:";

        record Gate(Class<?> on, String method, Thread thread, boolean after, CountDownLatch arrived, CountDownLatch open) {

            void awaitArrival() throws InterruptedException {
                if (!arrived.await(10, TimeUnit.SECONDS)) {
                    throw new AssertionError("no thread reached the gate on " + on.getSimpleName() + "." + method + "()");
                }
            }

            void letGo() {
                open.countDown();
            }
        }

        /** The next call of {@code method} on an object of type {@code on} throws {@code error}. */
        record Fault(Class<?> on, String method, SQLException error) {
        }

        static volatile Gate gate;
        static volatile Fault fault;

        static Gate arm(Class<?> on, String method, Thread thread) {
            Gate g = new Gate(on, method, thread, false, new CountDownLatch(1), new CountDownLatch(1));
            gate = g;
            return g;
        }

        static Gate armAfter(Class<?> on, String method, Thread thread) {
            Gate g = new Gate(on, method, thread, true, new CountDownLatch(1), new CountDownLatch(1));
            gate = g;
            return g;
        }

        @Override
        public Connection connect(String url, Properties info) throws SQLException {
            if (!acceptsURL(url)) {
                return null;
            }
            String real = url.substring(PREFIX.length());
            return wrap(DriverManager.getDriver(real).connect(real, info), Connection.class);
        }

        @SuppressWarnings("unchecked")
        static <T> T wrap(Object target, Class<T> iface) {
            return (T) Proxy.newProxyInstance(DeepGate.class.getClassLoader(), new Class<?>[] {iface}, (proxy, m, args) -> {
                if (m.getName().equals("unwrap") || m.getName().equals("isWrapperFor")) {
                    return call(target, m, args);
                }
                Gate g = gate;
                boolean stops = g != null && g.on == iface && g.method.equals(m.getName())
                        && (g.thread == null || g.thread == Thread.currentThread());
                if (stops && !g.after) {
                    pass(g);
                }
                Fault f = fault;
                if (f != null && f.on == iface && f.method.equals(m.getName())) {
                    fault = null;
                    throw f.error;
                }
                Object result = call(target, m, args);
                if (stops && g.after) {
                    pass(g);
                }
                if (result instanceof CallableStatement c && !(result instanceof Proxy)) {
                    return wrap(c, CallableStatement.class);
                }
                if (result instanceof PreparedStatement p && m.getReturnType() == PreparedStatement.class) {
                    return wrap(p, PreparedStatement.class);
                }
                if (result instanceof Statement s && m.getReturnType() == Statement.class) {
                    return wrap(s, Statement.class);
                }
                if (result instanceof DatabaseMetaData d) {
                    return wrap(d, DatabaseMetaData.class);
                }
                if (result instanceof ResultSet r) {
                    return wrap(r, ResultSet.class);
                }
                return result;
            });
        }

        private static void pass(Gate g) throws InterruptedException {
            gate = null;
            g.arrived.countDown();
            if (!g.open.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("gate never opened");
            }
        }

        private static Object call(Object target, java.lang.reflect.Method m, Object[] args) throws Throwable {
            try {
                return m.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }

        @Override
        public boolean acceptsURL(String url) {
            return url != null && url.startsWith(PREFIX);
        }

        @Override
        public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
            return new DriverPropertyInfo[0];
        }

        @Override
        public int getMajorVersion() {
            return 1;
        }

        @Override
        public int getMinorVersion() {
            return 0;
        }

        @Override
        public boolean jdbcCompliant() {
            return false;
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException();
        }
    }

    // ---- helpers --------------------------------------------------------------------------------

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

    /** A pool of one stub connection behind the deep gate. */
    private LoomPoolDataSource one() {
        LoomPoolDataSource ds = dataSource();
        ds.setJdbcUrl(DeepGate.PREFIX + db.url());
        ds.setDriverClassName(DeepGate.class.getName());
        ds.setMaxSize(1);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        return ds;
    }

    private static int inUse(LoomPoolDataSource ds) {
        return ds.getPool().stats().inUse();
    }

    /** A second borrower gets the pool's one connection and runs a statement on it within 5 s. */
    private static void freeWithinFiveSeconds(LoomPoolDataSource ds) throws Exception {
        CompletableFuture.runAsync(() -> {
            try (Connection b = ds.getConnection(); Statement st = b.createStatement()) {
                st.execute("SELECT 7");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }, r -> new Thread(r, "second-borrower").start()).get(5, TimeUnit.SECONDS);
    }

    /** Bound only for a reason it shows (DESIGN.md §4): else its connection is kept from every other borrower. */
    private static void boundOnlyForAReason(Connection handle) throws SQLException {
        LoomConnection h = handle.unwrap(LoomConnection.class);
        if (h.isBound()) {
            assertThat(h.pinReasons()).as("a bound handle shows why it is bound").isNotEmpty();
        }
    }

    /**
     * Runs {@code release} on thread "releaser" while another thread is held in the driver, and
     * returns the pool's in-use count once the releaser either returned or has been waiting 3 s
     * (then it waits for the run, as it must). 1 means the connection was kept for the held run.
     */
    private static int inUseWhileHeld(LoomPoolDataSource ds, Thread releaser) throws InterruptedException {
        releaser.join(3_000);
        return inUse(ds);
    }

    // =================================================================================================
    // 1. A release (the last pin ends) while a run of another thread is in the driver: it waits
    // =================================================================================================

    /**
     * A's statement pins; thread C calls {@code st.cancel()}, stopped in the driver; thread R closes
     * the statement (the last pin): the connection must not go back while the cancel may still reach
     * it (MariaDB's KILL QUERY, pgjdbc's cancel request go by the backend id).
     */
    @Test
    void aReleaseWaitsForACancelOfAnotherThreadStillInTheDriver() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = one();
            Connection a = ds.getConnection();
            Statement st = a.createStatement();
            st.execute("SELECT 1");
            AtomicReference<Throwable> failure = new AtomicReference<>();
            DeepGate.Gate g = DeepGate.arm(Statement.class, "cancel", null);
            Thread c = other("canceller", st::cancel, failure);
            g.awaitArrival();
            Thread r = other("releaser", st::close, failure);
            int held = inUseWhileHeld(ds, r);
            g.letGo();
            c.join(10_000);
            r.join(10_000);
            assertThat(held).as("the connection stays lent while C's cancel is in the driver").isEqualTo(1);
            assertThat(r.isAlive()).as("the release ends once the cancel returned").isFalse();
            assertThat(failure.get()).isNull();
            boundOnlyForAReason(a);
            freeWithinFiveSeconds(ds);
            a.close();
            assertThat(ds.getOpenHandles()).isZero();
        });
    }

    /**
     * Thread C's {@code getTables} is in the driver (a run, counted from meta()); thread R closes A's
     * only statement: the release is deferred to C's run, whose metadata result set then pins until
     * C closes it. The connection is lent throughout and goes back once, when C closes its result set.
     */
    @Test
    void aReleaseDuringAMetadataCallOfAnotherThreadIsLeftToItsRunAndItsResultSet() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = one();
            Connection a = ds.getConnection();
            Statement st = a.createStatement();
            st.execute("SELECT 1");
            DatabaseMetaData md = a.getMetaData();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<ResultSet> tables = new AtomicReference<>();
            DeepGate.Gate g = DeepGate.arm(DatabaseMetaData.class, "getTables", null);
            Thread c = other("metadata", () -> tables.set(md.getTables(null, null, "%", null)), failure);
            g.awaitArrival();
            Thread r = other("releaser", st::close, failure);
            int held = inUseWhileHeld(ds, r);
            g.letGo();
            c.join(10_000);
            r.join(10_000);
            assertThat(failure.get()).isNull();
            assertThat(held).as("lent while C's getTables is in the driver").isEqualTo(1);
            assertThat(inUse(ds)).as("C's metadata result set pins it").isEqualTo(1);
            boundOnlyForAReason(a);
            tables.get().close();
            assertThat(inUse(ds)).as("the result set's close lets the connection go").isZero();
            freeWithinFiveSeconds(ds);
            a.close();
            assertThat(ds.getOpenHandles()).isZero();
        });
    }

    /**
     * A release whose run ends on the releasing thread's own error path: C's cancel fails with a
     * plain (not connection) error while R's release waits for it; the release still completes.
     */
    @Test
    void aReleaseWaitingForACancelThatFailsStillEnds() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = one();
            Connection a = ds.getConnection();
            Statement st = a.createStatement();
            st.execute("SELECT 1");
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Throwable> cancelFailure = new AtomicReference<>();
            DeepGate.Gate g = DeepGate.arm(Statement.class, "cancel", null);
            Thread c = other("canceller", st::cancel, cancelFailure);
            g.awaitArrival();
            DeepGate.fault = new DeepGate.Fault(Statement.class, "cancel", new SQLException("no", "HY000"));
            Thread r = other("releaser", st::close, failure);
            int held = inUseWhileHeld(ds, r);
            g.letGo();
            c.join(10_000);
            r.join(10_000);
            assertThat(held).isEqualTo(1);
            assertThat(r.isAlive()).isFalse();
            assertThat(failure.get()).isNull();
            freeWithinFiveSeconds(ds);
            a.close();
            assertThat(ds.getOpenHandles()).isZero();
        });
    }

    // =================================================================================================
    // 2. A close (bound) while a run of another thread is in the driver
    // =================================================================================================

    /**
     * As {@link #aReleaseWaitsForACancelOfAnotherThreadStillInTheDriver}, but thread R closes the
     * handle instead of the statement. The release waits for the run (HandleLife.unbind ->
     * awaitRuns); the close does not: it only settles the connection with {@code isValid}
     * (ForeignRelease.settle), which a cancel in flight does not hold up (MariaDB sends KILL QUERY
     * over a connection of its own, pgjdbc a cancel request over a socket of its own), then gives
     * the connection back while the cancel is still on its way to the backend the next borrower has.
     */
    @Test
    void aCloseWaitsForACancelOfAnotherThreadStillInTheDriver() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = one();
            Connection a = ds.getConnection();
            Statement st = a.createStatement();
            st.execute("SELECT 1");
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Throwable> cancelOutcome = new AtomicReference<>();
            DeepGate.Gate g = DeepGate.arm(Statement.class, "cancel", null);
            Thread c = other("canceller", st::cancel, cancelOutcome);
            g.awaitArrival();
            Thread r = other("closer", a::close, failure);
            int held = inUseWhileHeld(ds, r);
            g.letGo();
            c.join(10_000);
            r.join(10_000);
            assertThat(held).as("the connection stays lent while C's cancel is in the driver").isEqualTo(1);
            assertThat(failure.get()).isNull();
            freeWithinFiveSeconds(ds);
            assertThat(ds.getOpenHandles()).isZero();
        });
    }

    /** The same with a metadata call of another thread in the driver (a run from meta()). */
    @Test
    void aCloseWaitsForAMetadataCallOfAnotherThreadStillInTheDriver() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = one();
            Connection a = ds.getConnection();
            Statement st = a.createStatement();
            st.execute("SELECT 1");
            DatabaseMetaData md = a.getMetaData();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Throwable> metaOutcome = new AtomicReference<>();
            DeepGate.Gate g = DeepGate.arm(DatabaseMetaData.class, "getTables", null);
            Thread c = other("metadata", () -> md.getTables(null, null, "%", null), metaOutcome);
            g.awaitArrival();
            Thread r = other("closer", a::close, failure);
            int held = inUseWhileHeld(ds, r);
            g.letGo();
            c.join(10_000);
            r.join(10_000);
            assertThat(held).as("the connection stays lent while C's getTables is in the driver").isEqualTo(1);
            assertThat(failure.get()).isNull();
            freeWithinFiveSeconds(ds);
            assertThat(ds.getOpenHandles()).isZero();
        });
    }

    /**
     * The same on PostgreSQL, where it shows: A's statement, thread C's {@code st.cancel()} stopped
     * before pgjdbc sends the cancel request; thread R closes A; B borrows the pool's one connection
     * and runs {@code pg_sleep(3)}; once B's query runs on the server, C's cancel goes on. A close
     * that waited for C's run would lend B the connection only after the cancel: B's query succeeds.
     * It does here even though the close does not wait (the stub tests above): the handle's close
     * closes A's statement first, and pgjdbc refuses cancel() on a closed statement. Only a cancel
     * already past that check inside the driver (not reachable by a gate at the entry) could land.
     */
    @Test
    void postgresCloseOverACancelInFlightNeverCancelsTheNextBorrowersQuery() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = one();
            ds.setJdbcUrl(DeepGate.PREFIX + TestDatabase.POSTGRES.url());
            Connection a = ds.getConnection();
            Statement st = a.createStatement();
            st.execute("SELECT 1");
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Throwable> cancelOutcome = new AtomicReference<>();
            DeepGate.Gate g = DeepGate.arm(Statement.class, "cancel", null);
            Thread c = other("canceller", st::cancel, cancelOutcome);
            g.awaitArrival();
            Thread r = other("closer", a::close, failure);
            r.join(3_000);
            AtomicReference<Throwable> bOutcome = new AtomicReference<>();
            Thread b = other("second-borrower", () -> {
                try (Connection bc = ds.getConnection(); Statement bs = bc.createStatement()) {
                    bs.execute("SELECT pg_sleep(3) AS b_marker");
                }
            }, bOutcome);
            try (Connection admin = TestDatabase.POSTGRES.admin(); Statement as = admin.createStatement()) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                boolean running = false;
                while (!running && System.nanoTime() < deadline) {
                    try (ResultSet rs = as.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE state = 'active' "
                            + "AND query LIKE '%b_marker%' AND pid <> pg_backend_pid()")) {
                        rs.next();
                        running = rs.getInt(1) > 0;
                    }
                    Thread.sleep(20);
                }
            }
            g.letGo();
            c.join(10_000);
            r.join(10_000);
            b.join(15_000);
            assertThat(failure.get()).isNull();
            assertThat(bOutcome.get()).as("B's query is never cancelled by A's cancel").isNull();
            assertThat(ds.getOpenHandles()).isZero();
        });
    }

    // =================================================================================================
    // 3. ENDING seen by other threads; the abort held in the driver
    // =================================================================================================

    /**
     * A watchdog aborts A's handle and is stopped in the driver's {@code abort} (the handle is
     * ENDING meanwhile). A's own thread then calls {@code createStatement()}: it must wait for the
     * end (settledEnd), then say "closed", never reach the connection; isClosed() says true at once;
     * the connection is retired, not lent; the count is 0.
     */
    @Test
    void aCallThatSeesEndingWaitsForTheAbortAndSaysClosed() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = one();
            Connection a = ds.getConnection();
            a.unwrap(LoomConnection.class).pin();
            try (Statement st = a.createStatement()) {
                st.execute("SELECT 1");
            }
            assertThat(ds.getOpenHandles()).isEqualTo(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            DeepGate.Gate g = DeepGate.arm(Connection.class, "abort", null);
            Thread w = other("watchdog", () -> a.abort(Runnable::run), failure);
            g.awaitArrival();
            assertThat(a.isClosed()).as("ENDING is not open").isTrue();
            AtomicReference<Throwable> ownerCall = new AtomicReference<>();
            Thread owner = other("owner", a::createStatement, ownerCall);
            owner.join(300);
            g.letGo();
            w.join(10_000);
            owner.join(10_000);
            assertThat(failure.get()).isNull();
            assertThat(owner.isAlive()).isFalse();
            assertThat(ownerCall.get()).isInstanceOf(SQLException.class).hasMessageContaining("closed");
            assertThat(ds.getOpenHandles()).isZero();
            assertThat(stub(1).isClosed()).as("the aborted connection is retired").isTrue();
            freeWithinFiveSeconds(ds);
            assertThat(db.connects()).isEqualTo(2);
        });
    }

    /** A close on another thread while the abort is in the driver returns (no wait on ENDING it cannot finish) and counts nothing twice. */
    @Test
    void aCloseDuringAnAbortInTheDriverReturnsAndCountsOnce() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = one();
            Connection a = ds.getConnection();
            Connection other = ds.getConnection(); // a second handle, counted, unbound: the count must stay 1 for it
            a.unwrap(LoomConnection.class).pin();
            a.createStatement().close();
            other.getAutoCommit(); // first use: counted
            int before = ds.getOpenHandles();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            DeepGate.Gate g = DeepGate.arm(Connection.class, "abort", null);
            Thread w = other("watchdog", () -> a.abort(Runnable::run), failure);
            g.awaitArrival();
            Thread closer = other("closer", a::close, failure);
            closer.join(10_000);
            assertThat(closer.isAlive()).as("close of an ENDING handle returns").isFalse();
            g.letGo();
            w.join(10_000);
            assertThat(failure.get()).isNull();
            assertThat(ds.getOpenHandles()).isEqualTo(before - 1);
            other.close();
            assertThat(ds.getOpenHandles()).isZero();
            freeWithinFiveSeconds(ds);
        });
    }

    // =================================================================================================
    // 4. Savepoint calls overtaken by a close
    // =================================================================================================

    /**
     * A (autocommit off) sets a savepoint; owner thread calls {@code releaseSavepoint}, stopped in
     * the driver; the watchdog closes A. The connection must be retired (the call may land in the
     * next borrower's transaction), not lent: B gets a new physical connection.
     */
    @Test
    void aSavepointCallOvertakenByACloseRetiresTheConnection() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = one();
            Connection a = ds.getConnection();
            a.setAutoCommit(false);
            try (Statement st = a.createStatement()) {
                st.execute("INSERT INTO t VALUES (1)");
            }
            Savepoint sp = a.setSavepoint("s1");
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Throwable> spOutcome = new AtomicReference<>();
            DeepGate.Gate g = DeepGate.arm(Connection.class, "releaseSavepoint", null);
            Thread owner = other("owner", () -> a.releaseSavepoint(sp), spOutcome);
            g.awaitArrival();
            Thread w = other("watchdog", a::close, failure);
            w.join(10_000);
            g.letGo();
            owner.join(10_000);
            assertThat(failure.get()).isNull();
            assertThat(stub(1).sql()).as("A's work is never committed").doesNotContain("COMMIT");
            freeWithinFiveSeconds(ds);
            assertThat(db.connects()).as("the overtaken connection was retired, B got a new one").isEqualTo(2);
            assertThat(ds.getOpenHandles()).isZero();
        });
    }

    /** setSavepoint stopped in the driver, close on another thread: same. */
    @Test
    void aSetSavepointOvertakenByACloseRetiresTheConnection() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = one();
            Connection a = ds.getConnection();
            a.setAutoCommit(false);
            try (Statement st = a.createStatement()) {
                st.execute("INSERT INTO t VALUES (1)");
            }
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Throwable> spOutcome = new AtomicReference<>();
            DeepGate.Gate g = DeepGate.arm(Connection.class, "setSavepoint", null);
            Thread owner = other("owner", () -> a.setSavepoint("s2"), spOutcome);
            g.awaitArrival();
            Thread w = other("watchdog", a::close, failure);
            w.join(10_000);
            g.letGo();
            owner.join(10_000);
            assertThat(failure.get()).isNull();
            assertThat(stub(1).sql()).doesNotContain("COMMIT");
            freeWithinFiveSeconds(ds);
            assertThat(db.connects()).isEqualTo(2);
            assertThat(ds.getOpenHandles()).isZero();
        });
    }

    // =================================================================================================
    // 5. A failing session call leaves the handle bound with no reason
    // =================================================================================================

    /**
     * {@code setClientInfo} on an unbound handle binds it; the driver refuses (SQLClientInfoException).
     * Nothing pins then (no session changed), so the connection must go back, as after any refused call.
     */
    @Test
    void aRefusedSetClientInfoLetsTheConnectionGo() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = one();
            try (Connection a = ds.getConnection()) {
                DeepGate.fault = new DeepGate.Fault(Connection.class, "setClientInfo",
                        new SQLClientInfoException("refused", "HY000", 0, Map.of()));
                try {
                    a.setClientInfo("ApplicationName", "x");
                } catch (SQLClientInfoException expected) {
                    // the driver refused
                }
                boundOnlyForAReason(a);
                freeWithinFiveSeconds(ds);
            }
            assertThat(ds.getOpenHandles()).isZero();
        });
    }

    /** {@code setTypeMap} refused by the driver on a handle it just bound: same invariant. */
    @Test
    void aRefusedSetTypeMapLetsTheConnectionGo() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = one();
            try (Connection a = ds.getConnection()) {
                DeepGate.fault = new DeepGate.Fault(Connection.class, "setTypeMap",
                        new SQLFeatureNotSupportedException("no type maps", "0A000"));
                try {
                    a.setTypeMap(Map.of());
                } catch (SQLException expected) {
                    // refused
                }
                boundOnlyForAReason(a);
                freeWithinFiveSeconds(ds);
            }
            assertThat(ds.getOpenHandles()).isZero();
        });
    }

    // =================================================================================================
    // 6. Short stress: close racing a first use; abort racing close
    // =================================================================================================

    /**
     * 300 rounds: a fresh handle's first use (createStatement) on thread X and its close on thread Y,
     * released by one barrier. Each round: no hang, the handle closed and unbound, the count 0, the
     * pool's one connection free again.
     */
    @Test
    void closeRacingAFirstUseLeavesNothingBoundOrCounted() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = one();
            for (int i = 0; i < 300; i++) {
                Connection a = ds.getConnection();
                CyclicBarrier start = new CyclicBarrier(2);
                AtomicReference<Throwable> failure = new AtomicReference<>();
                AtomicReference<Throwable> useOutcome = new AtomicReference<>();
                Thread x = other("first-use", () -> {
                    start.await();
                    try (Statement st = a.createStatement()) {
                        st.execute("SELECT 1");
                    }
                }, useOutcome);
                Thread y = other("closer", () -> {
                    start.await();
                    a.close();
                }, failure);
                x.join(10_000);
                y.join(10_000);
                assertThat(x.isAlive() || y.isAlive()).as("round " + i + ": no thread stuck").isFalse();
                assertThat(failure.get()).isNull();
                if (useOutcome.get() != null) {
                    assertThat(useOutcome.get()).as("round " + i).isInstanceOf(SQLException.class);
                }
                LoomConnection h = a.unwrap(LoomConnection.class);
                assertThat(a.isClosed()).isTrue();
                assertThat(h.isBound()).as("round " + i + ": closed and unbound").isFalse();
                assertThat(ds.getOpenHandles()).as("round " + i + ": count").isZero();
                assertThat(inUse(ds)).as("round " + i + ": the connection is back").isZero();
            }
            freeWithinFiveSeconds(ds);
        });
    }

    /**
     * 300 rounds: a pinned, bound handle, closed on X and aborted on Y at once. Each round: no
     * hang, the count exact (a second, counted handle keeps it at 1 so a double count-down shows),
     * the pool's connection back (or retired, and the idle one checked: then back once checked).
     */
    @Test
    void abortRacingACloseCountsOnceAndGivesBackOnce() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = one();
            ds.setMaxSize(2);
            Connection keeper = ds.getConnection();
            keeper.getAutoCommit();
            keeper.isReadOnly();
            try (Statement st = keeper.createStatement()) {
                st.execute("SELECT 0");
            }
            assertThat(ds.getOpenHandles()).isEqualTo(1);
            for (int i = 0; i < 300; i++) {
                Connection a = ds.getConnection();
                a.unwrap(LoomConnection.class).pin();
                a.createStatement().close();
                CyclicBarrier start = new CyclicBarrier(2);
                AtomicReference<Throwable> failure = new AtomicReference<>();
                Thread x = other("closer", () -> {
                    start.await();
                    a.close();
                }, failure);
                Thread y = other("aborter", () -> {
                    start.await();
                    a.abort(Runnable::run);
                }, failure);
                x.join(10_000);
                y.join(10_000);
                assertThat(x.isAlive() || y.isAlive()).as("round " + i + ": no thread stuck").isFalse();
                assertThat(failure.get()).isNull();
                assertThat(a.isClosed()).isTrue();
                assertThat(ds.getOpenHandles()).as("round " + i + ": only the keeper counts").isEqualTo(1);
                // Not at once: when the abort won, the broken connection is retired and the pool checks
                // its idle ones (the keeper's) at once, on the housekeeper, which holds one meanwhile.
                int round = i;
                eventually("round " + round + ": every connection back", () -> inUse(ds) == 0);
            }
            keeper.close();
            assertThat(ds.getOpenHandles()).isZero();
        });
    }
}
