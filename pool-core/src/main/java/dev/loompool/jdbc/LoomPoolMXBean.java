package dev.loompool.jdbc;

import java.util.List;
import java.util.Map;

/**
 * The pool seen through JMX (jconsole, JMC, a JMX exporter): registered with the platform MBean
 * server as {@code dev.loompool:type=Pool,name=<poolName>} when
 * {@link DataSourceSettings#setRegisterMbeans(boolean)} is true, from start until close.
 *
 * <p>Names follow HikariCP's {@code HikariPoolMXBean} where it has the same thing, so dashboards
 * and exporter rules written for it find the counts under the names they know. The counts are
 * those of the primary's pool; the handles, pins, reclaims and eviction cover the replicas too, as
 * the {@link LoomPoolDataSource} methods they read do.
 */
public interface LoomPoolMXBean {

    /** The pool's name, as in the ObjectName. */
    String getPoolName();

    /**
     * maxSize, which JMX may change while the pool runs, validated as configuration (a refused
     * value throws, and nothing changes): a higher one serves waiters at once, a lower one closes
     * surplus idle connections now and retires lent ones as they come back. HikariCP's
     * {@code HikariConfigMXBean}: {@code MaximumPoolSize}.
     */
    int getMaxSize();

    void setMaxSize(int maxSize);

    /** minSize, changed as {@link #setMaxSize}; never above maxSize. HikariCP: {@code MinimumIdle}. */
    int getMinSize();

    void setMinSize(int minSize);

    /** acquireTimeout in milliseconds (0: fail at once when none is free), changed as {@link #setMaxSize}. HikariCP: {@code ConnectionTimeout}. */
    long getAcquireTimeoutMillis();

    void setAcquireTimeoutMillis(long acquireTimeoutMillis);

    /** leakDetectionThreshold in milliseconds (0: off), changed as {@link #setMaxSize}. HikariCP: {@code LeakDetectionThreshold}. */
    long getLeakDetectionThresholdMillis();

    void setLeakDetectionThresholdMillis(long leakDetectionThresholdMillis);

    /** Physical connections open: idle plus active. HikariCP: the same name. */
    int getTotalConnections();

    /** Physical connections in the pool, lent to nobody. HikariCP: the same name. */
    int getIdleConnections();

    /** Physical connections lent out: bound to a handle, or being opened for one. HikariCP: the same name. */
    int getActiveConnections();

    /** Threads waiting for a physical connection. HikariCP: the same name. */
    int getThreadsAwaitingConnection();

    /** Logical connections open that have used a physical connection ({@link LoomPoolDataSource#getOpenHandles()}). */
    int getOpenHandles();

    /**
     * Physical connections lent out now, by the name of each {@link PinReason} that holds them
     * (every reason present, zero when none): a connection held for two reasons counts under both.
     */
    Map<String, Integer> getPinnedConnections();

    /** Connections taken back from dropped handles or ended owner threads since the start. */
    long getReclaimedConnections();

    /** {@code ACTIVE}, {@code INACTIVE} (failing fast) or {@code RECOVERING}: the primary's circuit breaker. */
    String getCircuitBreakerState();

    /** The handles that hold a physical connection now. */
    List<BoundHandle> getBoundHandles();

    /**
     * Closes the idle connections now; the pool opens fresh ones up to minSize. Connections lent
     * out are left alone. HikariCP's {@code softEvictConnections} also retires the lent ones when
     * they come back.
     *
     * @return how many were closed
     */
    int evictIdleConnections();

    /**
     * Sets the circuit breaker INACTIVE by hand, as the Actuator endpoint's {@code INACTIVE} does:
     * every {@code getConnection()} that needs a physical connection fails at once with an
     * {@link java.sql.SQLTransientConnectionException} until {@link #activatePool()}; the breaker
     * does not recover by itself. Handles already bound keep their connections. HikariCP's
     * {@code suspendPool} makes callers wait instead; failing fast is the breaker's promise.
     */
    void deactivatePool();

    /** Sets the circuit breaker ACTIVE: connections are lent again. HikariCP: {@code resumePool}. */
    void activatePool();

    /**
     * A handle that holds a physical connection, as JMX shows it (a CompositeData row); made from
     * {@link HandleInfo} in {@link #of(HandleInfo)} only, so a field added there is added here once.
     *
     * @param ownerThread the name of the thread that used it last
     * @param boundMillis how long it has held its physical connection, in milliseconds
     * @param pins the names of the {@link PinReason}s that keep it, in their declared order
     * @param longestPin the reason that has held it longest ({@link HandleInfo#longestPin()}), or null
     * @param longestPinMillis how long that reason has held it, in milliseconds
     * @param pinStatement the statement (first line, literals masked) or call that started it, or null
     * @param bindSite where the application bound it, with leak detection on; else null
     */
    record BoundHandle(String ownerThread, long boundMillis, List<String> pins, String longestPin,
            long longestPinMillis, String pinStatement, String bindSite) {

        static BoundHandle of(HandleInfo handle) {
            return new BoundHandle(handle.ownerThread(), handle.bound().toMillis(),
                    handle.pins().stream().sorted().map(PinReason::name).toList(),
                    handle.longestPin() == null ? null : handle.longestPin().name(), handle.longestPinFor().toMillis(),
                    handle.pinStatement(), handle.bindSite());
        }
    }
}
