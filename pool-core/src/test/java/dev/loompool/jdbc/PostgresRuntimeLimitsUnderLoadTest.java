package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.Attribute;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The limits changed through JMX while 200 virtual threads borrow from a real PostgreSQL: no
 * backend is lent to two borrowers at once, no waiter is lost, the pool ends within its new
 * maxSize, and once the connections lent before a shrink are back no more than the new maxSize are lent.
 */
class PostgresRuntimeLimitsUnderLoadTest {

    private static final int WORKERS = 200;
    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final LoomPoolDataSource ds = new LoomPoolDataSource();
    private final String app = "limits-" + System.nanoTime();

    /** Backends lent right now: a second borrower of one would find its pid here. */
    private final Set<Long> held = ConcurrentHashMap.newKeySet();
    private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    /** Borrows that may have started before the last change of maxSize. */
    private final AtomicInteger before = new AtomicInteger();
    /** Borrowers holding a backend that began after the last change of maxSize. */
    private final AtomicInteger after = new AtomicInteger();
    private final AtomicInteger peak = new AtomicInteger();
    private volatile int generation;
    private volatile int limit = Integer.MAX_VALUE;

    /** Virtual threads on JDK 21+ (by reflection: these sources compile for Java 17), platform threads on 17. */
    static final class Threads implements AutoCloseable {
        final ExecutorService pool = Executors.newCachedThreadPool(factory());

        private static ThreadFactory factory() {
            try {
                Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
                return (ThreadFactory) Class.forName("java.lang.Thread$Builder").getMethod("factory").invoke(builder);
            } catch (ReflectiveOperationException e) {
                return Executors.defaultThreadFactory();
            }
        }

        @Override
        public void close() throws InterruptedException {
            pool.shutdown();
            if (!pool.awaitTermination(3, TimeUnit.MINUTES)) {
                pool.shutdownNow();
                throw new AssertionError("borrowers still running after 3 minutes");
            }
        }
    }

    @AfterEach
    void close() {
        ds.close();
    }

    private ObjectName start(int maxSize, Duration acquireTimeout) throws Exception {
        String url = TestDatabase.POSTGRES.url();
        ds.setJdbcUrl(url + (url.contains("?") ? "&" : "?") + "ApplicationName=" + app);
        ds.setPoolName(app);
        ds.setMinSize(0);
        ds.setMaxSize(maxSize);
        ds.setAcquireTimeout(acquireTimeout);
        ds.setRegisterMbeans(true);
        ds.start();
        return LoomPoolMXBeanTest.nameOf(app);
    }

    /** One transaction holding a backend for a moment, checked against the invariants above. */
    private void borrow() throws SQLException {
        before.incrementAndGet();
        int seen = generation;
        boolean early = seen == 0;
        if (!early) {
            before.decrementAndGet();
        }
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            long pid = PostgresIntegrationTest.single(c, "SELECT pg_backend_pid()");
            if (!held.add(pid)) {
                violations.add("backend " + pid + " lent to two borrowers at once");
            }
            int now = early ? 0 : after.incrementAndGet();
            peak.accumulateAndGet(held.size(), Math::max);
            if (!early && before.get() == 0 && now > limit) {
                violations.add(now + " borrowers hold a backend after maxSize was lowered to " + limit);
            }
            try (Statement s = c.createStatement()) {
                s.execute("SELECT pg_sleep(0.002)");
            }
            if (!early) {
                after.decrementAndGet();
            }
            held.remove(pid);
            c.commit();
        } finally {
            if (early) {
                before.decrementAndGet();
            }
        }
    }

    private List<Future<Integer>> load(Threads threads, int rounds) {
        List<Future<Integer>> done = new ArrayList<>();
        for (int i = 0; i < WORKERS; i++) {
            done.add(threads.pool.submit(() -> {
                int timeouts = 0;
                for (int r = 0; r < rounds; r++) {
                    try {
                        borrow();
                    } catch (SQLTransientConnectionException timedOut) {
                        timeouts++;
                    }
                }
                return timeouts;
            }));
        }
        return done;
    }

    private static int timeouts(List<Future<Integer>> done) throws Exception {
        int timeouts = 0;
        for (Future<Integer> f : done) {
            timeouts += f.get(3, TimeUnit.MINUTES); // a lost waiter or a deadlock ends here
        }
        return timeouts;
    }

    private long backendsOfThisPool() throws SQLException {
        try (Connection c = DriverManager.getConnection(TestDatabase.POSTGRES.url())) {
            return PostgresIntegrationTest.single(c,
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = '" + app + "'");
        }
    }

    private void changeMaxSize(ObjectName name, int maxSize) throws Exception {
        server.setAttribute(name, new Attribute("MaxSize", maxSize));
        limit = maxSize;
        generation++;
    }

    @Test
    void shrinkingMaxSizeUnderLoadWithWaitersLendsNoBackendTwiceLosesNoWaiterAndEndsWithinTheNewMax()
            throws Exception {
        ObjectName name = start(20, Duration.ofMinutes(2));
        try (Threads threads = new Threads()) {
            List<Future<Integer>> done = load(threads, 15);
            StubSupport.eventually("the pool is full and threads wait", () -> ds.getPool().stats().total() == 20
                    && ds.getPool().stats().pending() > 0 || done.stream().allMatch(Future::isDone));
            changeMaxSize(name, 5);
            assertThat(ds.getPool().stats().maxSize()).isEqualTo(5);
            assertThat(timeouts(done)).as("no borrower timed out").isZero();
        }
        assertThat(violations).isEmpty();
        assertThat(peak.get()).isLessThanOrEqualTo(20);
        assertThat(ds.getPool().stats().inUse()).isZero();
        assertThat(ds.getPool().stats().pending()).isZero();
        assertThat(ds.getPool().stats().total()).isLessThanOrEqualTo(5);
        assertThat(ds.getOpenHandles()).isZero();
        StubSupport.eventually("the server has at most 5 backends of the pool", () -> {
            try {
                return backendsOfThisPool() <= 5;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void raisingMaxSizeUnderLoadServesTheWaitersFromNewConnectionsAndNeverExceedsIt() throws Exception {
        ObjectName name = start(2, Duration.ofMinutes(2));
        try (Threads threads = new Threads()) {
            List<Future<Integer>> done = load(threads, 10);
            StubSupport.eventually("threads wait for the two connections", () -> ds.getPool().stats().pending() > 50);
            changeMaxSize(name, 30);
            StubSupport.eventually("the pool grows for its waiters", () -> ds.getPool().stats().total() > 2);
            assertThat(timeouts(done)).as("no borrower timed out").isZero();
        }
        assertThat(violations).isEmpty();
        assertThat(peak.get()).isLessThanOrEqualTo(30);
        assertThat(ds.getPool().stats().total()).isBetween(3, 30);
        assertThat(ds.getPool().stats().inUse()).isZero();
        assertThat(backendsOfThisPool()).isLessThanOrEqualTo(30);
    }

    /** Shrink and grow back and forth through JMX while the load runs: the same invariants at each step. */
    @Test
    void maxSizeChangedBackAndForthUnderLoadKeepsEveryInvariant() throws Exception {
        ObjectName name = start(10, Duration.ofMinutes(2));
        try (Threads threads = new Threads()) {
            List<Future<Integer>> done = load(threads, 10);
            int[] sizes = {3, 12, 1, 8, 2};
            for (int size : sizes) {
                StubSupport.eventually("threads wait", () -> ds.getPool().stats().pending() > 0
                        || done.stream().allMatch(Future::isDone));
                // the bound after a shrink is checked in the single-change tests; here: no double lend, no lost waiter
                server.setAttribute(name, new Attribute("MaxSize", size));
            }
            assertThat(timeouts(done)).as("no borrower timed out").isZero();
        }
        assertThat(violations).isEmpty();
        assertThat(ds.getPool().stats().total()).isLessThanOrEqualTo(2);
        assertThat(ds.getPool().stats().inUse()).isZero();
        assertThat(ds.getPool().stats().pending()).isZero();
    }

    /**
     * A shorter acquire timeout set while threads already wait: every waiter ends, served or timed
     * out (HikariCP keeps the timeout each getConnection started with), and the next wait has the new one.
     */
    @Test
    void aShorterAcquireTimeoutWithThreadsWaitingLosesNoneAndBindsTheNextWait() throws Exception {
        ObjectName name = start(1, Duration.ofMinutes(2));
        List<Future<Integer>> done;
        try (Threads threads = new Threads()) {
            try (Connection holder = ds.getConnection()) {
                holder.setAutoCommit(false);
                PostgresIntegrationTest.single(holder, "SELECT 1");
                done = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    done.add(threads.pool.submit(() -> {
                        try {
                            borrow();
                            return 0;
                        } catch (SQLTransientConnectionException timedOut) {
                            return 1;
                        }
                    }));
                }
                StubSupport.eventually("20 threads wait", () -> ds.getPool().stats().pending() == 20);
                server.setAttribute(name, new Attribute("AcquireTimeoutMillis", 100L));
                assertThat(server.getAttribute(name, "AcquireTimeoutMillis")).isEqualTo(100L);
                try (Connection late = ds.getConnection()) {
                    Throwable failure = null;
                    try {
                        PostgresIntegrationTest.single(late, "SELECT 1");
                    } catch (SQLTransientConnectionException e) {
                        failure = e;
                    }
                    assertThat(failure).as("a wait that starts now has the new timeout").isNotNull()
                            .hasMessageContaining("100 ms");
                }
                holder.commit();
            }
            int timedOut = timeouts(done);
            assertThat(timedOut).isBetween(0, 20);
        }
        assertThat(violations).isEmpty();
        assertThat(ds.getPool().stats().pending()).isZero();
        assertThat(ds.getPool().stats().inUse()).isZero();
        assertThat(ds.getPool().stats().total()).isEqualTo(1);
    }
}
