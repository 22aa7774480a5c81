package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loompool.CircuitBreakerState;
import dev.loompool.PoolStats;
import dev.loompool.testsupport.PgCluster;
import dev.loompool.testsupport.Prerequisites;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.logging.Logger;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Attacks on the operability features (initializationFailTimeout, JMX, the connect failure's
 * suppressed note) and on the pool around them, against real databases: each test asserts the SAFE
 * behaviour, so a failing test marks a real problem. Tables are prefixed {@code atkops_}.
 */
class OpsAttackTest {

    /** Nothing listens there: pgjdbc's connect is refused at once. */
    private static final String CLOSED_PORT = "jdbc:postgresql://127.0.0.1:1/test?user=postgres";
    private static final Duration PATIENCE = Duration.ofSeconds(90);
    private static final String DB = "atkops";

    private static PgCluster cluster;
    private static volatile boolean clusterDown;

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final List<LoomPoolDataSource> dataSources = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        threads.forEach(Thread::interrupt);
        for (Thread t : threads) {
            t.join(30_000);
        }
        dataSources.forEach(LoomPoolDataSource::close);
        if (cluster != null && clusterDown) {
            cluster.start(); // a test that stopped it leaves it running for the next
            clusterDown = false;
        }
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }

    private static PgCluster cluster() throws Exception {
        if (cluster == null) {
            cluster = PgCluster.startWith(Prerequisites.postgresBinaries(), DB, "CREATE TABLE atkops_rows (id int)");
        }
        return cluster;
    }

    private LoomPoolDataSource ds(String name, String url) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(url);
        ds.setPoolName(name);
        ds.setMinSize(0);
        ds.setMaxSize(4);
        ds.setAcquireTimeout(Duration.ofSeconds(5));
        dataSources.add(ds);
        return ds;
    }

    private Thread fork(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
        return t;
    }

    private static void eventually(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("gave up waiting until " + what);
            }
            LockSupport.parkNanos(5_000_000);
        }
    }

    private static ObjectName nameOf(String pool) throws Exception {
        return LoomPoolMXBeanTest.nameOf(pool);
    }

    private static void exec(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static String text(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static long count(String url, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url)) {
            return Long.parseLong(text(c, sql));
        }
    }

    private static void admin(String url, String... sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url)) {
            for (String s : sql) {
                exec(c, s);
            }
        }
    }

    /** A snapshot's counts: total = idle + inUse, none negative, total within maxSize; else what is wrong. */
    private static String countsWrong(PoolStats s) {
        boolean ok = s.total() == s.idle() + s.inUse() && s.total() >= 0 && s.idle() >= 0 && s.inUse() >= 0
                && s.pending() >= 0 && s.total() <= s.maxSize();
        return ok ? null : s.toString();
    }

    // ==== 1. initializationFailTimeout ===========================================================

    /**
     * The breaker opened by the start's failures, then set INACTIVE by hand (an operator holds the
     * pool while they migrate the database); the database comes back; the background fill succeeds.
     * README: "a breaker set INACTIVE by hand stays so".
     */
    @Test
    void aBreakerDeactivatedByHandAfterTheFailuresOpenedItStaysInactiveWhenTheBackgroundFillSucceeds() throws Exception {
        PgCluster pg = cluster();
        pg.stop();
        clusterDown = true;
        LoomPoolDataSource ds = ds("atkops-hand-open", pg.jdbcUrl(DB, "connectTimeout=2"));
        ds.setMinSize(1);
        ds.setInitializationFailTimeout(Duration.ofMillis(-1));
        ds.setCircuitBreakerFailureThreshold(1);
        ds.setCircuitBreakerOpenDuration(Duration.ofHours(1)); // no request probe: only the background can close it
        ds.setRegisterMbeans(true);
        ds.start();
        eventually("the start's failure opens the breaker", () -> ds.getPool().state() == CircuitBreakerState.INACTIVE);
        server.invoke(nameOf("atkops-hand-open"), "deactivatePool", null, null); // the operator's hold
        pg.start();
        clusterDown = false;
        // idle, not total: total counts the slot the background reserves before its connect ends
        eventually("the background fill connects", () -> ds.getPool().stats().idle() >= 1);
        assertThat(ds.getPool().state()).as("held INACTIVE by hand through deactivatePool").isEqualTo(CircuitBreakerState.INACTIVE);
        try (Connection c = ds.getConnection()) {
            assertThat(catchThrowable(() -> text(c, "SELECT 1"))).isInstanceOf(SQLTransientConnectionException.class);
        }
    }

    /**
     * The same hold without the background fill (initializationFailTimeout 0): an outage opens the
     * breaker, the operator deactivates it by hand, the database comes back, requests keep coming.
     * The strategy's own back-off probe must not end a hold set by hand.
     */
    @Test
    void aBreakerDeactivatedByHandDuringAnOutageIsNotEndedByARequestProbe() throws Exception {
        PgCluster pg = cluster();
        LoomPoolDataSource ds = ds("atkops-hand-probe", pg.jdbcUrl(DB, "connectTimeout=2"));
        ds.setCircuitBreakerFailureThreshold(1);
        ds.setCircuitBreakerOpenDuration(Duration.ofMillis(640)); // first probe after 10 ms
        ds.setRegisterMbeans(true);
        ds.start();
        pg.stop();
        clusterDown = true;
        try (Connection c = ds.getConnection()) {
            assertThat(catchThrowable(() -> text(c, "SELECT 1"))).isInstanceOf(SQLException.class);
        }
        eventually("the outage opens the breaker", () -> ds.getPool().state() == CircuitBreakerState.INACTIVE);
        server.invoke(nameOf("atkops-hand-probe"), "deactivatePool", null, null);
        pg.start();
        clusterDown = false;
        List<String> served = new ArrayList<>();
        for (int i = 0; i < 100; i++) { // 100 requests over a few seconds, well past the 640 ms open duration
            try (Connection c = ds.getConnection()) {
                served.add("request " + i + " got " + text(c, "SELECT 'served'"));
            } catch (SQLTransientConnectionException heldAsAsked) {
                // failing fast: the hold
            }
            LockSupport.parkNanos(Duration.ofMillis(30).toNanos());
        }
        assertThat(served).as("requests served while held INACTIVE by hand").isEmpty();
        assertThat(ds.getPool().state()).isEqualTo(CircuitBreakerState.INACTIVE);
    }

    /** The same hold, set while the breaker is still ACTIVE (fewer failures than the threshold). */
    @Test
    void aBreakerDeactivatedByHandBeforeAnyOpeningStaysInactiveWhenTheBackgroundFillSucceeds() throws Exception {
        PgCluster pg = cluster();
        pg.stop();
        clusterDown = true;
        LoomPoolDataSource ds = ds("atkops-hand-active", pg.jdbcUrl(DB, "connectTimeout=2"));
        ds.setMinSize(1);
        ds.setInitializationFailTimeout(Duration.ofMillis(-1));
        ds.setCircuitBreakerFailureThreshold(1_000_000);
        ds.setRegisterMbeans(true);
        ds.start();
        assertThat(ds.getPool().state()).isEqualTo(CircuitBreakerState.ACTIVE);
        server.invoke(nameOf("atkops-hand-active"), "deactivatePool", null, null);
        pg.start();
        clusterDown = false;
        // idle, not total: total counts the slot the background reserves before its connect ends
        eventually("the background fill connects", () -> ds.getPool().stats().idle() >= 1);
        assertThat(ds.getPool().state()).isEqualTo(CircuitBreakerState.INACTIVE);
    }

    /**
     * The database comes back while 12 borrowers hammer a pool of maxSize=2 that started empty: the
     * server must never see more than 2 of its backends, and no borrower may get a connection whose
     * connectionInitSql did not run or whose default isolation was not applied.
     */
    @Test
    void aDatabaseComingBackUnderLoadNeverYieldsMoreThanMaxSizeOrAHalfInitialisedConnection() throws Exception {
        PgCluster pg = cluster();
        pg.stop();
        clusterDown = true;
        LoomPoolDataSource ds = ds("atkops-comeback", pg.jdbcUrl(DB, "connectTimeout=2"));
        ds.setMinSize(2);
        ds.setMaxSize(2);
        ds.setInitializationFailTimeout(Duration.ofMillis(-1));
        ds.setCircuitBreakerFailureThreshold(1_000_000); // every request tries its own connect
        ds.setConnectionInitSql("SET atkops.inited = 'yes'");
        ds.setTransactionIsolation("SERIALIZABLE");
        ds.setAcquireTimeout(Duration.ofSeconds(3));
        ds.start();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger served = new AtomicInteger();
        List<String> anomalies = new CopyOnWriteArrayList<>();
        AtomicInteger mostBackends = new AtomicInteger();
        for (int i = 0; i < 12; i++) {
            fork("borrower-" + i, () -> {
                while (!stop.get()) {
                    try (Connection c = ds.getConnection()) {
                        String seen = text(c, "SELECT coalesce(current_setting('atkops.inited', true), '<unset>') || ' '"
                                + " || current_setting('transaction_isolation')");
                        if (!"yes serializable".equals(seen)) {
                            anomalies.add("a borrower saw: " + seen);
                        }
                        served.incrementAndGet();
                    } catch (SQLException expectedWhileDown) {
                        // refused while the server is down
                    }
                    String wrong = countsWrong(ds.getPool().stats());
                    if (wrong != null) {
                        anomalies.add("counts: " + wrong);
                    }
                }
            });
        }
        fork("sampler", () -> {
            while (!stop.get()) {
                try {
                    mostBackends.accumulateAndGet(pg.clientBackends(DB, Set.of()), Math::max);
                } catch (SQLException down) {
                    // the server is down
                }
                LockSupport.parkNanos(2_000_000);
            }
        });
        LockSupport.parkNanos(Duration.ofMillis(1500).toNanos());
        pg.start();
        clusterDown = false;
        eventually("borrowers are served", () -> served.get() >= 2000);
        stop.set(true);
        for (Thread t : threads) {
            t.join(30_000);
        }
        assertThat(anomalies).isEmpty();
        assertThat(mostBackends.get()).as("backends the server saw at once").isLessThanOrEqualTo(2);
    }

    /** close() on another thread while a positive initializationFailTimeout start retries: close must not wait out the start. */
    @Test
    void closeWhileTheStartRetriesReturnsPromptlyAndLeavesNoMBean() throws Exception {
        LoomPoolDataSource ds = ds("atkops-close-while-starting", CLOSED_PORT);
        ds.setMinSize(1);
        ds.setInitializationFailTimeout(Duration.ofMinutes(10));
        ds.setRegisterMbeans(true);
        ObjectName name = nameOf("atkops-close-while-starting");
        AtomicReference<Throwable> startFailure = new AtomicReference<>();
        Thread starting = fork("starting", () -> {
            try {
                ds.start();
            } catch (Throwable e) {
                startFailure.set(e);
            }
        });
        eventually("the start registers its MBean and retries", () -> server.isRegistered(name));
        LockSupport.parkNanos(Duration.ofMillis(500).toNanos());
        CountDownLatch closed = new CountDownLatch(1);
        fork("closing", () -> {
            ds.close();
            closed.countDown();
        });
        boolean closeReturned = closed.await(60, TimeUnit.SECONDS); // vs. a 10-minute start: generous
        starting.interrupt(); // the cleanup, whatever happened: ends the start's wait
        starting.join(30_000);
        assertThat(closeReturned).as("close() returned while the start was still retrying (10 min timeout)").isTrue();
        eventually("close finished", () -> closed.getCount() == 0);
        assertThat(server.isRegistered(name)).isFalse();
        assertThat(ds.isRunning()).isFalse();
    }

    @Test
    void anInterruptWhileTheStartRetriesFailsItAndUnregistersTheMBean() throws Exception {
        LoomPoolDataSource ds = ds("atkops-interrupted", CLOSED_PORT);
        ds.setMinSize(2);
        ds.setInitializationFailTimeout(Duration.ofMinutes(10));
        ds.setRegisterMbeans(true);
        ObjectName name = nameOf("atkops-interrupted");
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean flag = new AtomicBoolean();
        Thread starting = fork("starting", () -> {
            try {
                ds.start();
            } catch (Throwable e) {
                failure.set(e);
            }
            flag.set(Thread.currentThread().isInterrupted());
        });
        eventually("registered", () -> server.isRegistered(name));
        LockSupport.parkNanos(Duration.ofMillis(400).toNanos());
        starting.interrupt();
        starting.join(60_000);
        assertThat(starting.isAlive()).isFalse();
        assertThat(failure.get()).isInstanceOf(SQLException.class).hasMessageContaining("interrupted");
        assertThat(flag.get()).isTrue();
        assertThat(server.isRegistered(name)).isFalse();
        assertThat(ds.isRunning()).isFalse();
        // and the data source can still be closed, and then started again it refuses
        ds.close();
        assertThat(catchThrowable(ds::start)).isInstanceOf(SQLException.class);
    }

    /** A negative timeout with a replica that is down: the primary serves writes; read-only work falls back. */
    @Test
    void aNegativeTimeoutWithADeadReplicaStartsAndThePrimaryCommits() throws Exception {
        String url = TestDatabase.POSTGRES.url();
        admin(url, "CREATE TABLE IF NOT EXISTS atkops_replica (id int)", "DELETE FROM atkops_replica");
        LoomPoolDataSource ds = ds("atkops-replica-down", url);
        ds.setMinSize(1);
        ds.setReplicas(List.of(CLOSED_PORT));
        ds.setReplicaMinSize(1);
        ds.setReplicaFallbackToPrimary(true);
        ds.setInitializationFailTimeout(Duration.ofMillis(-1));
        ds.start();
        assertThat(ds.isRunning()).isTrue();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            exec(c, "INSERT INTO atkops_replica VALUES (1)");
            c.commit();
        }
        try (Connection c = ds.getConnection()) {
            c.setReadOnly(true);
            assertThat(text(c, "SELECT count(*) FROM atkops_replica")).isEqualTo("1");
        }
        assertThat(count(url, "SELECT count(*) FROM atkops_replica")).isEqualTo(1);
    }

    // ==== 2. JMX ================================================================================

    @Test
    void deactivateWhileAPostgresBorrowerIsMidTransactionNeverLosesHalfItsCommit() throws Exception {
        deactivateMidTransaction(TestDatabase.POSTGRES.url(), "atkops-deact-pg");
    }

    @Test
    void deactivateWhileAMariaDbBorrowerIsMidTransactionNeverLosesHalfItsCommit() throws Exception {
        deactivateMidTransaction(TestDatabase.MARIADB.url(), "atkops-deact-maria");
    }

    private void deactivateMidTransaction(String url, String pool) throws Exception {
        String table = "atkops_deact_" + (url.contains("postgresql") ? "pg" : "maria");
        admin(url, "CREATE TABLE IF NOT EXISTS " + table + " (id int)", "DELETE FROM " + table);
        LoomPoolDataSource ds = ds(pool, url);
        ds.setRegisterMbeans(true);
        ds.start();
        ObjectName name = nameOf(pool);
        Throwable commitFailure;
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            exec(a, "INSERT INTO " + table + " VALUES (1)");
            server.invoke(name, "deactivatePool", null, null);
            try (Connection b = ds.getConnection()) {
                assertThat(catchThrowable(() -> text(b, "SELECT 1"))).as("B fails fast")
                        .isInstanceOf(SQLTransientConnectionException.class);
            }
            commitFailure = catchThrowable(() -> {
                exec(a, "INSERT INTO " + table + " VALUES (2)");
                a.commit();
            });
            if (commitFailure != null) {
                catchThrowable(a::rollback);
            }
        }
        server.invoke(name, "activatePool", null, null);
        long rows = count(url, "SELECT count(*) FROM " + table);
        System.out.println(pool + ": A's commit " + (commitFailure == null ? "returned" : "threw " + commitFailure)
                + "; rows=" + rows);
        if (commitFailure == null) {
            assertThat(rows).as("A's commit returned: both rows").isEqualTo(2);
        } else {
            assertThat(rows).as("A got " + commitFailure + ": neither row").isZero();
        }
        try (Connection c = ds.getConnection()) {
            assertThat(text(c, "SELECT 1")).isEqualTo("1");
        }
        assertThat(server.getAttribute(name, "CircuitBreakerState")).isEqualTo("ACTIVE");
    }

    @Test
    void evictIdleConnectionsRacingBorrowersNeverClosesALentConnectionNorLosesACommit() throws Exception {
        String url = TestDatabase.POSTGRES.url();
        admin(url, "CREATE TABLE IF NOT EXISTS atkops_evict (id int PRIMARY KEY)", "DELETE FROM atkops_evict");
        LoomPoolDataSource ds = ds("atkops-evict", url);
        ds.setMinSize(2);
        ds.setMaxSize(4);
        ds.setRegisterMbeans(true);
        ds.start();
        ObjectName name = nameOf("atkops-evict");
        Set<Integer> committed = ConcurrentHashMap.newKeySet();
        List<String> errors = new CopyOnWriteArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger evicted = new AtomicInteger();
        List<Thread> borrowers = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            int base = t * 10_000;
            borrowers.add(fork("borrower-" + t, () -> {
                for (int i = 0; i < 150; i++) {
                    int id = base + i;
                    try (Connection c = ds.getConnection()) {
                        c.setAutoCommit(false);
                        exec(c, "INSERT INTO atkops_evict VALUES (" + id + ")");
                        text(c, "SELECT count(*) FROM atkops_evict WHERE id = " + id);
                        c.commit();
                        committed.add(id);
                    } catch (SQLException e) {
                        errors.add(id + ": " + e);
                    }
                }
            }));
        }
        fork("evictor", () -> {
            while (!stop.get()) {
                try {
                    evicted.addAndGet((Integer) server.invoke(name, "evictIdleConnections", null, null));
                    int total = (Integer) server.getAttribute(name, "TotalConnections");
                    int idle = (Integer) server.getAttribute(name, "IdleConnections");
                    int active = (Integer) server.getAttribute(name, "ActiveConnections");
                    if (total < 0 || idle < 0 || active < 0) {
                        errors.add("negative count: total=" + total + " idle=" + idle + " active=" + active);
                    }
                    String wrong = countsWrong(ds.getPool().stats());
                    if (wrong != null) {
                        errors.add("counts: " + wrong);
                    }
                } catch (Exception e) {
                    errors.add("evictor: " + e);
                }
            }
        });
        for (Thread b : borrowers) {
            b.join(PATIENCE.toMillis());
        }
        stop.set(true);
        assertThat(errors).isEmpty();
        assertThat(committed).hasSize(8 * 150);
        assertThat(count(url, "SELECT count(*) FROM atkops_evict")).isEqualTo(committed.size());
        assertThat(evicted.get()).as("the race happened: idle connections were evicted").isPositive();
    }

    @Test
    void aSecondPoolOfTheSameNameNeverTakesOrRemovesTheFirstsMBean() throws Exception {
        String url = TestDatabase.POSTGRES.url();
        LoomPoolDataSource first = ds("atkops-twin", url);
        first.setRegisterMbeans(true);
        first.start();
        ObjectName name = nameOf("atkops-twin");
        LoomPoolDataSource second = ds("atkops-twin", url);
        second.setRegisterMbeans(true);
        try (Connection held = first.getConnection()) {
            held.setAutoCommit(false);
            text(held, "SELECT 1");
            Throwable secondStart = catchThrowable(second::start); // README-jmx: fails; PoolMBean: WARN and runs
            assertThat(server.isRegistered(name)).isTrue();
            assertThat(server.getAttribute(name, "ActiveConnections")).as("the first pool's numbers").isEqualTo(1);
            if (secondStart == null) {
                try (Connection c = second.getConnection()) {
                    text(c, "SELECT 1");
                }
            }
            second.close();
            assertThat(server.isRegistered(name)).as("the second's close leaves the first's MBean").isTrue();
            assertThat(server.getAttribute(name, "ActiveConnections")).isEqualTo(1);
            server.invoke(name, "deactivatePool", null, null);
            assertThat(first.getPool().state()).isEqualTo(CircuitBreakerState.INACTIVE);
            assertThat(second.isRunning()).isFalse();
            server.invoke(name, "activatePool", null, null);
            held.commit();
        }
        first.close();
        assertThat(server.isRegistered(name)).isFalse();
    }

    // ==== 3. the failed connect's suppressed note ================================================

    @Test
    void tenThousandFailedConnectsToAClosedPortCarryOneSuppressedNoteEach() throws Exception {
        LoomPoolDataSource ds = ds("atkops-refused", CLOSED_PORT);
        ds.setCircuitBreakerFailureThreshold(1_000_000); // every acquire connects
        ds.start();
        int most = failMany(ds, 10_000, null);
        assertThat(most).as("most suppressed on one thrown exception").isLessThanOrEqualTo(1);
    }

    @Test
    void aDriverThatSharesOneExceptionInstanceDoesNotPileUpSuppressedNotes() throws Exception {
        SharedFailureDriver.register();
        LoomPoolDataSource ds = ds("atkops-shared", SharedFailureDriver.PREFIX + "one");
        ds.setCircuitBreakerFailureThreshold(1_000_000);
        ds.start();
        Set<Throwable> distinct = Collections.newSetFromMap(new ConcurrentHashMap<>());
        failMany(ds, 10_000, distinct);
        assertThat(distinct).as("the driver's one instance, the cause of each caller's exception").hasSize(1);
        assertThat(SharedFailureDriver.failure("one").getSuppressed()).as("nothing added to it").isEmpty();
    }

    /**
     * Two replicas whose driver caches one exception per URL (or one for all), read-only work, no
     * fallback: the replica loop adds each replica's failure to the first one's suppressed list.
     */
    @Test
    void replicasWhoseDriverSharesExceptionsDoNotPileUpSuppressedNotes() throws Exception {
        SharedFailureDriver.register();
        LoomPoolDataSource ds = ds("atkops-shared-replicas", TestDatabase.POSTGRES.url());
        ds.setReplicas(List.of(SharedFailureDriver.PREFIX + "r1", SharedFailureDriver.PREFIX + "r2"));
        ds.setReplicaMinSize(0);
        ds.setReplicaFallbackToPrimary(false);
        ds.setCircuitBreakerFailureThreshold(1_000_000);
        ds.start();
        int most = 0;
        List<Throwable> odd = new ArrayList<>();
        // 2,000, not 10,000: each failure rescans the growing list (10,000 took 337 s and left 5,001 suppressed)
        for (int i = 0; i < 2_000; i++) {
            try (Connection c = ds.getConnection()) {
                c.setReadOnly(true);
                text(c, "SELECT 1");
                odd.add(new AssertionError("a dead replica served"));
            } catch (SQLException e) {
                most = Math.max(most, e.getSuppressed().length);
            } catch (RuntimeException e) {
                odd.add(e);
            }
        }
        assertThat(odd).isEmpty();
        assertThat(most).as("most suppressed on one thrown exception").isLessThanOrEqualTo(4);
    }

    /** The same, with one instance for every URL: the loop must not suppress an exception into itself. */
    @Test
    void replicasWhoseDriverSharesOneInstanceForAllUrlsFailWithAnSqlException() throws Exception {
        SharedFailureDriver.register();
        LoomPoolDataSource ds = ds("atkops-shared-same", TestDatabase.POSTGRES.url());
        ds.setReplicas(List.of(SharedFailureDriver.PREFIX + "same?a", SharedFailureDriver.PREFIX + "same?b"));
        ds.setReplicaMinSize(0);
        ds.setReplicaFallbackToPrimary(false);
        ds.setCircuitBreakerFailureThreshold(1_000_000);
        ds.start();
        try (Connection c = ds.getConnection()) {
            c.setReadOnly(true);
            assertThat(catchThrowable(() -> text(c, "SELECT 1"))).isInstanceOf(SQLException.class);
        }
    }

    /** 8 threads fail {@code n} acquires in all; the most suppressed exceptions seen on one thrown. */
    private int failMany(LoomPoolDataSource ds, int n, Set<Throwable> distinct) throws InterruptedException {
        AtomicInteger left = new AtomicInteger(n);
        AtomicInteger most = new AtomicInteger();
        List<Throwable> odd = new CopyOnWriteArrayList<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            workers.add(fork("failing-" + t, () -> {
                while (left.getAndDecrement() > 0) {
                    try (Connection c = ds.getConnection()) {
                        text(c, "SELECT 1");
                        odd.add(new AssertionError("served"));
                    } catch (SQLException e) {
                        most.accumulateAndGet(e.getSuppressed().length, Math::max);
                        if (distinct != null) {
                            distinct.add(e.getCause()); // the driver's, beneath the pool's exception naming the pool
                        }
                    } catch (RuntimeException e) {
                        odd.add(e);
                    }
                }
            }));
        }
        for (Thread w : workers) {
            w.join(PATIENCE.toMillis() * 2);
        }
        assertThat(odd).isEmpty();
        assertThat(left.get()).as("all attempts made").isLessThanOrEqualTo(0);
        return most.get();
    }

    /** A driver that throws one cached exception per URL (up to '?'), as a driver that shares instances would. */
    static final class SharedFailureDriver implements Driver {
        static final String PREFIX = "jdbc:atkops-shared:";
        private static final Map<String, SQLException> FAILURES = new ConcurrentHashMap<>();
        private static final AtomicBoolean REGISTERED = new AtomicBoolean();

        static void register() throws SQLException {
            if (REGISTERED.compareAndSet(false, true)) {
                DriverManager.registerDriver(new SharedFailureDriver());
            }
        }

        static SQLException failure(String key) {
            return FAILURES.computeIfAbsent(key, k -> new SQLNonTransientConnectionException(
                    "Connection refused (" + k + ")", "08001"));
        }

        @Override
        public Connection connect(String url, Properties info) throws SQLException {
            if (!acceptsURL(url)) {
                return null;
            }
            String rest = url.substring(PREFIX.length());
            int q = rest.indexOf('?');
            throw failure(q < 0 ? rest : rest.substring(0, q));
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

    // ==== 4. pins and transactions: borrower A, borrower B ========================================

    @Test
    void postgresAbortedTransactionLeftOpenByANeverReachesBNorCommits() throws Exception {
        abortedTransactionLeftOpen(TestDatabase.POSTGRES.url(), "atkops-abort-pg", "SELECT 1/0");
    }

    @Test
    void mariaDbTransactionLeftOpenByAWithAFailedStatementNeverReachesBNorCommits() throws Exception {
        abortedTransactionLeftOpen(TestDatabase.MARIADB.url(), "atkops-abort-maria", "SELECT * FROM atkops_no_such_table");
    }

    /**
     * A: autocommit off, inserts, a statement fails, A closes its handle without commit or
     * rollback. B (maxSize=1: the same physical connection) must neither see A's row nor commit it
     * with its own work, and must not inherit an aborted transaction.
     */
    private void abortedTransactionLeftOpen(String url, String pool, String failing) throws Exception {
        String table = "atkops_abort_" + (url.contains("postgresql") ? "pg" : "maria");
        admin(url, "CREATE TABLE IF NOT EXISTS " + table + " (who varchar(10))", "DELETE FROM " + table);
        LoomPoolDataSource ds = ds(pool, url);
        ds.setMaxSize(1);
        ds.start();
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            exec(a, "INSERT INTO " + table + " VALUES ('a')");
            assertThat(catchThrowable(() -> text(a, failing))).isInstanceOf(SQLException.class);
        } // no commit, no rollback
        try (Connection b = ds.getConnection()) {
            assertThat(b.getAutoCommit()).isTrue();
            exec(b, "INSERT INTO " + table + " VALUES ('b')");
            assertThat(text(b, "SELECT count(*) FROM " + table + " WHERE who = 'a'")).isEqualTo("0");
        }
        assertThat(count(url, "SELECT count(*) FROM " + table + " WHERE who = 'a'")).as("A's row").isZero();
        assertThat(count(url, "SELECT count(*) FROM " + table + " WHERE who = 'b'")).as("B's row").isEqualTo(1);
    }

    @Test
    void postgresIsolationAndReadOnlySetByANeverReachB() throws Exception {
        String url = TestDatabase.POSTGRES.url();
        admin(url, "CREATE TABLE IF NOT EXISTS atkops_iso_pg (id int)", "DELETE FROM atkops_iso_pg");
        isolationAndReadOnly(url, "atkops-iso-pg", "SHOW transaction_isolation", "read committed",
                "SHOW transaction_read_only", "off", "atkops_iso_pg");
    }

    @Test
    void mariaDbIsolationAndReadOnlySetByANeverReachB() throws Exception {
        String url = TestDatabase.MARIADB.url();
        admin(url, "CREATE TABLE IF NOT EXISTS atkops_iso_maria (id int)", "DELETE FROM atkops_iso_maria");
        isolationAndReadOnly(url, "atkops-iso-maria", "SELECT @@session.tx_isolation", "REPEATABLE-READ",
                "SELECT @@session.tx_read_only", "0", "atkops_iso_maria");
    }

    /**
     * A: SERIALIZABLE, read-only, a transaction, commit, close. B on the same physical connection
     * (maxSize=1) must find the server's defaults again, and its write must commit.
     */
    private void isolationAndReadOnly(String url, String pool, String isoSql, String iso, String roSql, String ro,
            String table) throws Exception {
        LoomPoolDataSource ds = ds(pool, url);
        ds.setMaxSize(1);
        ds.start();
        try (Connection a = ds.getConnection()) {
            a.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            a.setReadOnly(true);
            a.setAutoCommit(false);
            text(a, "SELECT count(*) FROM " + table);
            assertThat(catchThrowable(() -> exec(a, "INSERT INTO " + table + " VALUES (9)")))
                    .as("A is read-only").isInstanceOf(SQLException.class);
            a.rollback();
        }
        try (Connection b = ds.getConnection()) {
            assertThat(text(b, isoSql)).isEqualTo(iso);
            assertThat(text(b, roSql)).isEqualTo(ro);
            exec(b, "INSERT INTO " + table + " VALUES (1)");
        }
        assertThat(count(url, "SELECT count(*) FROM " + table)).isEqualTo(1);
    }
}
