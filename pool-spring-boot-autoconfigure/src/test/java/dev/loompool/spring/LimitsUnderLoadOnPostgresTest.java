package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.PoolStats;
import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.LoomPoolMXBean;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * The run-time limits through the MXBean, as an operator changes them in jconsole, while the real
 * PostgreSQL pool is loaded: lent connections, queued waiters. Invariants: a refused value changes
 * nothing; after the returns no more connections are open than maxSize, counted by the server
 * itself (pg_stat_activity, by application_name); waiters are served in their order; none is lost
 * and none is left open after the close.
 */
class LimitsUnderLoadOnPostgresTest {

    private static String baseUrl() {
        return System.getenv().getOrDefault("LOOMPOOL_TEST_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    }

    private static LoomPoolDataSource pool(String name, int min, int max) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(baseUrl() + "&ApplicationName=" + name.replace('-', '_'));
        ds.setPoolName(name);
        ds.setMinSize(min);
        ds.setMaxSize(max);
        ds.setRegisterMbeans(true);
        ds.setHealthcheckInterval(Duration.ofMillis(200));
        return ds;
    }

    /** Connections the server has for the pool {@code name}, counted from another connection. */
    private static int serverSide(String name) {
        try (Connection c = DriverManager.getConnection(baseUrl());
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE application_name = '"
                        + name.replace('-', '_') + "'")) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static LoomPoolMXBean mxBean(String name) throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        return JMX.newMXBeanProxy(server, new ObjectName("dev.loompool:type=Pool,name=" + name), LoomPoolMXBean.class);
    }

    private static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(20);
        }
    }

    private static Connection hold(LoomPoolDataSource ds) throws SQLException {
        Connection c = ds.getConnection();
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.execute("SELECT 1");
        }
        return c;
    }

    private static void release(Connection c) throws SQLException {
        c.commit();
        c.close();
    }

    @Test
    void maxShrunkBelowTheLentOnesRefusesBadValuesKeepsFifoAndEndsAtMax() throws Exception {
        String name = "wt40b-shrink";
        try (LoomPoolDataSource ds = pool(name, 2, 4)) {
            ds.setAcquireTimeout(Duration.ofSeconds(60));
            ds.start();
            LoomPoolMXBean jmx = mxBean(name);
            List<Connection> held = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                held.add(hold(ds));
            }
            List<Integer> served = new CopyOnWriteArrayList<>();
            List<Throwable> failed = new CopyOnWriteArrayList<>();
            CountDownLatch finish = new CountDownLatch(1);
            List<Thread> waiters = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                int index = i;
                Thread t = new Thread(() -> {
                    try {
                        Connection c = hold(ds);
                        served.add(index);
                        finish.await();
                        release(c);
                    } catch (Throwable e) {
                        failed.add(e);
                    }
                });
                t.start();
                waiters.add(t);
                eventually("waiter " + i + " queued", () -> ds.getPool().stats().pending() == index + 1);
            }
            jmx.setMaxSize(2);
            assertThat(jmx.getMaxSize()).isEqualTo(2);
            // refused, each changing nothing
            assertThatThrownBy(() -> jmx.setMinSize(3)).as("min above max").isNotNull();
            assertThatThrownBy(() -> jmx.setMaxSize(0)).as("max zero").isNotNull();
            assertThatThrownBy(() -> jmx.setMaxSize(-5)).as("max negative").isNotNull();
            assertThatThrownBy(() -> jmx.setMinSize(-1)).as("min negative").isNotNull();
            assertThatThrownBy(() -> jmx.setAcquireTimeoutMillis(-1)).as("negative timeout").isNotNull();
            assertThatThrownBy(() -> jmx.setLeakDetectionThresholdMillis(-1)).as("negative threshold").isNotNull();
            assertThat(ds.getPool().stats().maxSize()).isEqualTo(2);
            assertThat(ds.getPool().stats().minSize()).isEqualTo(2);
            assertThat(jmx.getMinSize()).isEqualTo(2);
            assertThat(ds.getAcquireTimeout()).isEqualTo(Duration.ofSeconds(60));
            assertThat(ds.getPool().stats().pending()).as("the waiters still wait").isEqualTo(3);

            release(held.get(0));
            release(held.get(1));
            assertThat(served).as("two lent of max two: no waiter served yet").isEmpty();
            release(held.get(2));
            eventually("one waiter served", () -> served.size() == 1);
            release(held.get(3));
            eventually("two waiters served", () -> served.size() == 2);
            assertThat(ds.getPool().stats().total()).isLessThanOrEqualTo(2);
            finish.countDown();
            for (Thread t : waiters) {
                t.join(TimeUnit.SECONDS.toMillis(60));
            }
            assertThat(failed).isEmpty();
            assertThat(served).as("FIFO").containsExactly(0, 1, 2);
            eventually("the pool holds no more than max, by its count", () -> ds.getPool().stats().total() <= 2
                    && ds.getPool().stats().inUse() == 0);
            eventually("the server has no more than max", () -> serverSide(name) <= 2);
        }
        eventually("the server has none after the close", () -> serverSide(name) == 0);
    }

    @Test
    void concurrentChangesThroughJmxUnderLoadKeepMinAtMostMaxAndLoseNoConnection() throws Exception {
        String name = "wt40b-churn";
        try (LoomPoolDataSource ds = pool(name, 1, 6)) {
            ds.setAcquireTimeout(Duration.ofMillis(500));
            ds.start();
            LoomPoolMXBean jmx = mxBean(name);
            AtomicBoolean running = new AtomicBoolean(true);
            List<Throwable> unexpected = new CopyOnWriteArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < 8; w++) {
                threads.add(new Thread(() -> {
                    while (running.get()) {
                        try (Connection c = ds.getConnection()) {
                            c.setAutoCommit(false);
                            try (Statement s = c.createStatement()) {
                                s.execute("SELECT pg_sleep(0.002)");
                            }
                            c.commit();
                        } catch (SQLException timedOut) {
                            // a shrunk pool may time a caller out
                        } catch (Throwable e) {
                            unexpected.add(e);
                        }
                    }
                }));
            }
            for (int j = 0; j < 2; j++) {
                threads.add(new Thread(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (running.get()) {
                        try {
                            switch (random.nextInt(4)) {
                                case 0 -> jmx.setMaxSize(random.nextInt(-1, 8));
                                case 1 -> jmx.setMinSize(random.nextInt(-1, 8));
                                case 2 -> jmx.setAcquireTimeoutMillis(random.nextLong(-1, 800));
                                default -> jmx.setLeakDetectionThresholdMillis(random.nextLong(-1, 5000));
                            }
                        } catch (RuntimeException refused) {
                            // JMX wraps the IllegalArgumentException of a refused value
                            Throwable cause = refused;
                            while (cause.getCause() != null) {
                                cause = cause.getCause();
                            }
                            if (!(cause instanceof IllegalArgumentException)) {
                                unexpected.add(refused);
                            }
                        }
                        // one snapshot: two would see a change made between them
                        PoolStats snapshot = ds.getPool().stats();
                        int min = snapshot.minSize();
                        int max = snapshot.maxSize();
                        if (min > max) {
                            unexpected.add(new AssertionError("min " + min + " > max " + max));
                        }
                    }
                }));
            }
            threads.forEach(Thread::start);
            Thread.sleep(3_000);
            running.set(false);
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(60));
            }
            assertThat(unexpected).isEmpty();
            assertThat(jmx.getMinSize()).isLessThanOrEqualTo(jmx.getMaxSize());
            assertThat(ds.getMaxSize()).isEqualTo(jmx.getMaxSize()).isEqualTo(ds.getPool().stats().maxSize());
            assertThat(ds.getMinSize()).isEqualTo(jmx.getMinSize()).isEqualTo(ds.getPool().stats().minSize());
            int max = ds.getPool().stats().maxSize();
            eventually("every connection back, no more than max", () -> ds.getPool().stats().inUse() == 0
                    && ds.getPool().stats().total() <= max);
            eventually("the server agrees with the pool's count", () -> serverSide(name) == ds.getPool().stats().total());
            // the pool still serves, up to its max at once
            List<Connection> all = new ArrayList<>();
            for (int i = 0; i < max; i++) {
                all.add(hold(ds));
            }
            for (Connection c : all) {
                release(c);
            }
        }
        eventually("the server has none after the close", () -> serverSide(name) == 0);
    }

    @Test
    void aChangeAfterTheCloseIsRefusedAndChangesNothing() throws Exception {
        String name = "wt40b-closed";
        LoomPoolDataSource ds = pool(name, 1, 3);
        ds.start();
        ds.close();
        assertThatThrownBy(() -> ds.setMaxSize(7)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ds.setMinSize(0)).isInstanceOf(IllegalStateException.class);
        assertThat(ds.getMaxSize()).isEqualTo(3);
        assertThat(ds.getMinSize()).isEqualTo(1);
        assertThat(ManagementFactory.getPlatformMBeanServer()
                .isRegistered(new ObjectName("dev.loompool:type=Pool,name=" + name))).as("the MBean goes with the pool").isFalse();
        eventually("the server has none after the close", () -> serverSide(name) == 0);
    }
}
