package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.management.Attribute;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * The run-time limits at their bounds (huge, overflowing, out of order, concurrent, after close),
 * through the setters and the MXBean: a value is either refused with an IllegalArgumentException
 * that changes nothing, or taken and in force, and what the getters say is what the pool does.
 */
class RuntimeLimitsBoundsTest extends StubSupport {

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    private static void use(LoomPoolDataSource ds) throws SQLException {
        try (Connection c = ds.getConnection()) {
            BindingTest.query(c, "SELECT 1");
        }
    }

    /** HikariCP's setConnectionTimeout(Long.MAX_VALUE) is taken (its waits saturate), and so should be this. */
    @Test
    void aHugeAcquireTimeoutIsTakenOrRefusedNamingTheSettingNeverAnOverflow() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.start();
        Duration huge = Duration.ofMillis(Long.MAX_VALUE);
        try {
            ds.setAcquireTimeout(huge);
        } catch (IllegalArgumentException refused) {
            assertThat(refused).hasMessageContaining("acquireTimeout");
            assertThat(ds.getAcquireTimeout()).isEqualTo(Duration.ofSeconds(5));
            return;
        }
        assertThat(ds.getAcquireTimeout()).isEqualTo(huge);
        use(ds);
    }

    @Test
    void aHugeLeakDetectionThresholdIsTakenOrRefusedNamingTheSettingNeverAnOverflow() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.start();
        Duration huge = Duration.ofMillis(Long.MAX_VALUE);
        try {
            ds.setLeakDetectionThreshold(huge);
        } catch (IllegalArgumentException refused) {
            assertThat(refused).hasMessageContaining("leakDetectionThreshold");
            return;
        }
        assertThat(ds.getLeakDetectionThreshold()).isEqualTo(huge);
        use(ds);
    }

    /** Whatever the overflow does, it must not leave the pool half changed: the getters and the pool agree. */
    @Test
    void aTimeoutPastTheNanosecondRangeIsTakenAndLeavesTheSizesAsTheyWere() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setMinSize(1);
        ds.start();
        // Past what a long holds in nanoseconds: taken as "never" (saturated), as HikariCP takes Long.MAX_VALUE
        ds.setAcquireTimeout(Duration.ofDays(200_000 * 365L));
        assertThat(ds.getAcquireTimeout()).isEqualTo(Duration.ofDays(200_000 * 365L));
        assertThat(ds.getPool().stats().minSize()).isEqualTo(1);
        assertThat(ds.getPool().stats().maxSize()).isEqualTo(4);
        use(ds);
    }

    @Test
    void integerMaxValueSizesAreTakenWithoutAllocatingForThemAndTheLowerOnesBack() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.start();
        ds.setMaxSize(Integer.MAX_VALUE);
        assertThat(ds.getPool().stats().maxSize()).isEqualTo(Integer.MAX_VALUE);
        use(ds);
        ds.setMaxSize(3);
        ds.setMinSize(3);
        assertThatThrownBy(() -> ds.setMinSize(Integer.MAX_VALUE)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("minSize=" + Integer.MAX_VALUE + ", maxSize=3");
        assertThatThrownBy(() -> ds.setMaxSize(Integer.MIN_VALUE)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxSize must be >= 1");
        assertThatThrownBy(() -> ds.setMinSize(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(ds.getMinSize()).isEqualTo(3);
        assertThat(ds.getMaxSize()).isEqualTo(3);
        assertThat(ds.getPool().stats().minSize()).isEqualTo(3);
        assertThat(ds.getPool().stats().maxSize()).isEqualTo(3);
    }

    @Test
    void minAboveMaxInTwoStepsIsRefusedAtTheSecondAndTheFirstStays() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.start();
        ds.setMaxSize(2);
        assertThatThrownBy(() -> ds.setMinSize(3)).isInstanceOf(IllegalArgumentException.class);
        assertThat(ds.getMaxSize()).isEqualTo(2);
        assertThat(ds.getMinSize()).isZero();
        assertThat(ds.getPool().stats().maxSize()).isEqualTo(2);
        assertThat(ds.getPool().stats().minSize()).isZero();
    }

    @Test
    void afterCloseEveryLimitIsRefusedAndTheMBeanIsGone() throws Exception {
        LoomPoolDataSource ds = dataSource();
        ds.setRegisterMbeans(true);
        ds.start();
        ObjectName name = LoomPoolMXBeanTest.nameOf(ds.getPoolName());
        server.setAttribute(name, new Attribute("MaxSize", 3));
        assertThat(ds.getPool().stats().maxSize()).isEqualTo(3);
        ds.close();
        assertThat(server.isRegistered(name)).isFalse();
        assertThatThrownBy(() -> ds.setMaxSize(2)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ds.setMinSize(1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ds.setAcquireTimeout(Duration.ofSeconds(1))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ds.setLeakDetectionThreshold(Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class);
        assertThat(ds.getMaxSize()).isEqualTo(3);
    }

    /**
     * JMX and the application (or the endpoint) set maxSize at once: the last change the pool took
     * must be what getMaxSize (and so the MXBean, the endpoint and the meters) reports. The setter
     * applies under a lock but stores the field after releasing it, so two setters can store out of order.
     */
    @Test
    void concurrentSettersLeaveTheGetterAndThePoolAgreeing() throws Exception {
        LoomPoolDataSource ds = dataSource();
        ds.setMaxSize(50);
        ds.start();
        var executor = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 2_000; round++) {
                CyclicBarrier start = new CyclicBarrier(2);
                int a = 5 + round % 7;
                int b = 20 + round % 11;
                Future<?> fa = executor.submit(() -> {
                    start.await();
                    ds.setMaxSize(a);
                    return null;
                });
                Future<?> fb = executor.submit(() -> {
                    start.await();
                    ds.setMaxSize(b);
                    return null;
                });
                fa.get(10, TimeUnit.SECONDS);
                fb.get(10, TimeUnit.SECONDS);
                assertThat(ds.getMaxSize()).as("round %d", round).isEqualTo(ds.getPool().stats().maxSize());
            }
        } finally {
            executor.shutdownNow();
        }
    }

    /** The same race, minSize against maxSize: a pair in order at each step must never leave min > max in force. */
    @Test
    void concurrentMinAndMaxChangesNeverLeaveMinAboveMaxInThePool() throws Exception {
        LoomPoolDataSource ds = dataSource();
        ds.setMaxSize(10);
        ds.start();
        var executor = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 500; round++) {
                CountDownLatch go = new CountDownLatch(1);
                Future<?> fa = executor.submit(() -> {
                    go.await();
                    try {
                        ds.setMinSize(6);
                    } catch (IllegalArgumentException refused) {
                        // refused when maxSize was 3 at that moment
                    }
                    return null;
                });
                Future<?> fb = executor.submit(() -> {
                    go.await();
                    try {
                        ds.setMaxSize(3);
                    } catch (IllegalArgumentException refused) {
                        // refused when minSize was 6 at that moment
                    }
                    return null;
                });
                go.countDown();
                fa.get(10, TimeUnit.SECONDS);
                fb.get(10, TimeUnit.SECONDS);
                var stats = ds.getPool().stats();
                assertThat(stats.minSize()).as("round %d", round).isLessThanOrEqualTo(stats.maxSize());
                ds.setMinSize(0);
                ds.setMaxSize(10);
            }
        } finally {
            executor.shutdownNow();
        }
        assertThat(List.of(ds.getMinSize(), ds.getMaxSize())).containsExactly(0, 10);
    }

    private LoomPoolDataSource withReplica() {
        LoomPoolDataSource ds = dataSource();
        ds.setReplicas(List.of(dev.loompool.stub.StubDriver.database(db.name() + "-replica").url()));
        return ds;
    }

    @Test
    void aReplicaWithoutSizesOfItsOwnFollowsThePrimarysLimits() throws SQLException {
        LoomPoolDataSource ds = withReplica();
        ds.start();
        ds.setMaxSize(7);
        ds.setMinSize(1);
        var replica = ds.getReplicaPools().get(0).stats();
        assertThat(replica.maxSize()).isEqualTo(7);
        assertThat(replica.minSize()).isEqualTo(1);
        ds.setMaxSize(1);
        assertThat(ds.getReplicaPools().get(0).stats().maxSize()).isEqualTo(1);
        use(ds);
    }

    /** replicaMinSize fixed at 3: a maxSize of 2 would give the replica min 3 > max 2, so it is refused and changes nothing. */
    @Test
    void aMaxSizeBelowAFixedReplicaMinSizeIsRefusedAndChangesNeitherPool() throws SQLException {
        LoomPoolDataSource ds = withReplica();
        ds.setReplicaMinSize(3);
        ds.start();
        assertThatThrownBy(() -> ds.setMaxSize(2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("replicaMinSize");
        assertThat(ds.getMaxSize()).isEqualTo(4);
        assertThat(ds.getPool().stats().maxSize()).isEqualTo(4);
        assertThat(ds.getReplicaPools().get(0).stats().maxSize()).isEqualTo(4);
        assertThat(ds.getReplicaPools().get(0).stats().minSize()).isEqualTo(3);
    }

    @Test
    void aFixedReplicaMaxSizeStaysWhenThePrimarysChanges() throws SQLException {
        LoomPoolDataSource ds = withReplica();
        ds.setReplicaMaxSize(2);
        ds.start();
        ds.setMaxSize(9);
        assertThat(ds.getPool().stats().maxSize()).isEqualTo(9);
        assertThat(ds.getReplicaPools().get(0).stats().maxSize()).isEqualTo(2);
        ds.setAcquireTimeout(Duration.ofMillis(100));
        assertThat(ds.getAcquireTimeout()).isEqualTo(Duration.ofMillis(100));
    }

    /** Four MXBean attributes are writable; the JMX section (docs/operations.md) must not tell operators the opposite. */
    @Test
    void theJmxReadmeDoesNotSayTheLimitsAreFrozen() throws Exception {
        String jmx = java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", "operations.md"));
        assertThat(jmx).doesNotContain("has no counterpart");
    }
}
