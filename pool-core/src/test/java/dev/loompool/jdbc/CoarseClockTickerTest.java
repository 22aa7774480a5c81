package dev.loompool.jdbc;

import static dev.loompool.jdbc.BindingTest.query;
import static dev.loompool.jdbc.ReclaimerWaits.awaitScans;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.stub.StubDatabase;
import dev.loompool.stub.StubDriver;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The coarse clock's ticker thread ({@code loompool-clock}, PoolClock.coarseNanoTime): it runs
 * while pools release connections, ends once every pool is closed, comes back for the next, is
 * shared by all pools, survives interrupts without spinning, and a transient failure to start it
 * does not leave the coarse time frozen.
 */
class CoarseClockTickerTest extends StubSupport {

    private static List<Thread> clockThreads() {
        List<Thread> found = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("loompool-clock") && t.isAlive()) {
                found.add(t);
            }
        }
        return found;
    }

    private static void cycles(LoomPoolDataSource ds, int n) throws SQLException {
        for (int i = 0; i < n; i++) {
            try (Connection c = ds.getConnection()) {
                query(c, "SELECT 1");
            }
        }
    }

    /**
     * The ticker runs while pools release connections, ends about 5 s after the last reading once
     * every pool is closed (no thread left), and starts again for the next pool.
     */
    @Test
    void theClockThreadEndsAfterAllPoolsCloseAndComesBackForTheNext() throws Exception {
        LoomPoolDataSource ds = dataSource();
        cycles(ds, 50);
        assertThat(clockThreads()).as("the ticker runs while a pool releases").hasSize(1);
        ds.close();
        long closed = System.nanoTime();
        eventually("no loompool-clock thread is left", () -> clockThreads().isEmpty());
        long gone = System.nanoTime() - closed;
        System.out.println("[clock] loompool-clock ended " + Duration.ofNanos(gone).toMillis() + " ms after the pool closed");
        assertThat(Duration.ofNanos(gone)).as("it ends about 5 s after the last reading")
                .isLessThan(Duration.ofSeconds(10));
        LoomPoolDataSource next = dataSource();
        cycles(next, 5);
        assertThat(clockThreads()).as("a new pool starts it again").hasSize(1);
        Thread t = clockThreads().get(0);
        assertThat(t.isDaemon()).isTrue();
        assertThat(t.getContextClassLoader()).isNull();
        next.close();
    }

    /**
     * Many pools opened, used and closed side by side: one ticker at most, and none left after
     * they are all closed (+ the idle time).
     */
    @Test
    void manyPoolsOpeningAndClosingShareOneTickerAndLeaveNone() throws Exception {
        List<Thread> workers = new ArrayList<>();
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        int[] maxTickers = {0};
        for (int w = 0; w < 6; w++) {
            workers.add(new Thread(() -> {
                try {
                    while (System.nanoTime() < end) {
                        StubDatabase db = StubDriver.database("ticker-" + System.nanoTime() + "-" + Thread.currentThread().getId());
                        LoomPoolDataSource ds = new LoomPoolDataSource();
                        ds.setJdbcUrl(db.url());
                        ds.setMinSize(0);
                        ds.setMaxSize(2);
                        try {
                            cycles(ds, 20);
                        } finally {
                            ds.close();
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        workers.forEach(Thread::start);
        while (workers.stream().anyMatch(Thread::isAlive)) {
            synchronized (maxTickers) {
                maxTickers[0] = Math.max(maxTickers[0], clockThreads().size());
            }
            LockSupport.parkNanos(20_000_000);
        }
        assertThat(failures).isEmpty();
        assertThat(maxTickers[0]).as("one ticker for all pools").isLessThanOrEqualTo(1);
        long closed = System.nanoTime();
        eventually("no loompool-clock thread is left", () -> clockThreads().isEmpty());
        System.out.println("[clock] after many pools: ended " + Duration.ofNanos(System.nanoTime() - closed).toMillis()
                + " ms after the last close");
        assertThat(Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .map(Thread::getName).filter(n -> n.startsWith("loompool-")).toList())
                .as("no pool thread survives its pool").isEmpty();
    }

    /**
     * An interrupt (an application server's "interrupt all threads" on undeploy, a test framework's
     * cleanup) neither kills nor spins the ticker, and the coarse reading keeps advancing: a
     * statement held 400 ms is recorded as about 400 ms in the pin times (its sample is read on the
     * coarse clock).
     */
    @Test
    void interruptsNeitherKillNorSpinTheTickerAndTheCoarseTimeKeepsAdvancing() throws Exception {
        LoomPoolDataSource ds = dataSource();
        cycles(ds, 5);
        Thread ticker = clockThreads().get(0);
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpuBefore = mx.getThreadCpuTime(ticker.getId());
        long wallBefore = System.nanoTime();
        for (int i = 0; i < 200; i++) {
            ticker.interrupt();
            LockSupport.parkNanos(5_000_000);
            if (i % 20 == 0) {
                cycles(ds, 1); // keep it read
            }
        }
        long cpu = mx.getThreadCpuTime(ticker.getId()) - cpuBefore;
        long wall = System.nanoTime() - wallBefore;
        assertThat(ticker.isAlive()).as("still ticking").isTrue();
        assertThat(clockThreads()).containsExactly(ticker);
        System.out.println("[clock] ticker CPU " + cpu / 1_000_000 + " ms over " + wall / 1_000_000 + " ms of interrupts");
        assertThat(cpu).as("it does not spin").isLessThan(wall / 4);
        Connection c = ds.getConnection();
        java.sql.Statement st = c.createStatement(); // the STATEMENT pin, a lazy one, sampled on the coarse clock
        st.executeQuery("SELECT 1").close();
        LockSupport.parkNanos(400_000_000);
        ticker.interrupt();
        st.close();
        c.close();
        PinTime statement = ds.getPinTimes().get(PinReason.STATEMENT);
        assertThat(statement.max()).as("the coarse clock advanced across the interrupt: %s", statement)
                .isBetween(Duration.ofMillis(350), Duration.ofMillis(2000));
    }

    /**
     * The ticker's thread cannot be started once (a transient "unable to create native thread", a
     * container's pids limit, or as here a security policy that refuses it once). SystemClock.start
     * sets {@code running} by compare-and-set before it creates the thread and never clears it on
     * failure: from then on no reader restarts it, and the coarse reading stays at that moment for
     * good. Seen from the outside: a handle bound 0.1 s ago is reported bound for seconds, and
     * leak detection (threshold 2 s) reports it as a leak at once. Runs in a child JVM (the clock is
     * JVM-wide); needs a JDK that can still install a SecurityManager (17 to 23).
     */
    @Test
    void aTickerThatFailsToStartOnceLeavesTheCoarseClockFrozenForGood() throws Exception {
        // JDK 24 and later refuse to start a JVM that asks for a SecurityManager at all
        org.junit.jupiter.api.Assumptions.assumeTrue(Runtime.version().feature() < 24,
                "this JDK cannot install a SecurityManager");
        String javaBin = System.getProperty("java.home") + "/bin/java";
        ProcessBuilder pb = new ProcessBuilder(javaBin, "-Djava.security.manager=allow", "-cp",
                System.getProperty("java.class.path"), ClockStartFails.class.getName());
        pb.redirectErrorStream(true);
        Process child = pb.start();
        String out = new String(child.getInputStream().readAllBytes());
        assertThat(child.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        System.out.println("[child]\n" + out);
        org.junit.jupiter.api.Assumptions.assumeFalse(out.contains("RESULT unsupported"),
                "this JDK cannot install a SecurityManager");
        assertThat(out).contains("RESULT done");
        assertThat(out).as("a ticker runs again after the transient failure").contains("RESULT clockThreads=1");
        assertThat(out).as("a binding of 0.1 s is reported as such").contains("RESULT boundLong=false");
        assertThat(out).as("no leak reported for a 0.1 s binding with a 2 s threshold").contains("RESULT leaks=0");
    }

    /** The child JVM of the test above. */
    public static final class ClockStartFails {

        public static void main(String[] args) throws Exception {
            java.util.concurrent.atomic.AtomicBoolean refuse = new java.util.concurrent.atomic.AtomicBoolean(true);
            try {
                System.setSecurityManager(new SecurityManager() {
                    @Override
                    public void checkPermission(java.security.Permission perm) {
                    }

                    @Override
                    public void checkPermission(java.security.Permission perm, Object context) {
                    }

                    @Override
                    public void checkAccess(ThreadGroup g) {
                        if (refuse.get() && StackWalker.getInstance().walk(frames -> frames
                                .anyMatch(f -> f.getClassName().equals("dev.loompool.SystemClock")))) {
                            refuse.set(false); // once: a transient failure
                            throw new SecurityException("simulated: no thread can be created just now");
                        }
                    }
                });
            } catch (UnsupportedOperationException e) {
                System.out.println("RESULT unsupported");
                return;
            }
            StubDatabase db = StubDriver.database("frozen-clock");
            LoomPoolDataSource ds = new LoomPoolDataSource();
            ds.setJdbcUrl(db.url());
            ds.setMinSize(0);
            ds.setMaxSize(2);
            ds.setLeakDetectionThreshold(Duration.ofSeconds(2));
            try {
                for (int i = 0; i < 3; i++) {
                    try (Connection c = ds.getConnection()) {
                        query(c, "SELECT 1");
                        System.out.println("RESULT cycle" + i + "=ok");
                    } catch (Throwable e) {
                        System.out.println("RESULT cycle" + i + "=" + e);
                    }
                }
                long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
                while (System.nanoTime() < until) { // readers keep coming
                    try (Connection c = ds.getConnection()) {
                        query(c, "SELECT 1");
                    }
                    LockSupport.parkNanos(50_000_000);
                }
                System.out.println("RESULT clockThreads=" + clockThreads().size());
                long leaksBefore = ds.leaksReported();
                try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(false);
                    query(c, "SELECT 2"); // bound, in a transaction
                    LockSupport.parkNanos(100_000_000);
                    Duration bound = ds.getBoundHandles().get(0).bound();
                    System.out.println("RESULT bound=" + bound.toMillis() + "ms");
                    System.out.println("RESULT boundLong=" + (bound.compareTo(Duration.ofSeconds(1)) > 0));
                    awaitScans(3);
                    System.out.println("RESULT leaks=" + (ds.leaksReported() - leaksBefore));
                    c.rollback();
                }
            } finally {
                ds.close();
            }
            System.out.println("RESULT done");
            System.exit(0);
        }
    }
}
