package dev.loompool.jdbc;

import dev.loompool.PoolStats;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;

/**
 * The pool's {@link LoomPoolMXBean}, and its registration with the platform MBean server. It reads
 * the data source's public methods only, so JMX shows what the Actuator endpoint and the meters show.
 */
final class PoolMBean implements LoomPoolMXBean {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(PoolMBean.class);

    private final LoomPoolDataSource ds;
    private final ObjectName name;

    private PoolMBean(LoomPoolDataSource ds, ObjectName name) {
        this.ds = ds;
        this.name = name;
    }

    /**
     * Registers {@code ds}'s MXBean under {@code dev.loompool:type=Pool,name=<poolName>}, or, when
     * another pool of this name holds it in this JVM, logs one WARN and returns null: the pool runs
     * without an MBean rather than fail a start (cached Spring test contexts share a JVM and a pool
     * name), and the other pool's MBean stays its own.
     */
    static PoolMBean register(LoomPoolDataSource ds) {
        String poolName = ds.getPoolName();
        ObjectName name = objectName(poolName);
        PoolMBean bean = new PoolMBean(ds, name);
        try {
            // StandardMBean: the introspection needs the public interface only, not a public class
            server().registerMBean(new StandardMBean(bean, LoomPoolMXBean.class, true), name);
        } catch (InstanceAlreadyExistsException e) {
            log.warn("pool '{}' runs without an MBean: the JMX name {} is taken by another pool of this name in this "
                    + "JVM; give each pool its own name (setPoolName, loompool.pool-name)", poolName, name);
            return null;
        } catch (JMException e) {
            throw new IllegalStateException("pool '" + poolName + "': could not register its MBean " + name, e);
        }
        return bean;
    }

    /** Unregisters this pool's MBean; one unregistered by somebody else meanwhile is left as it is. */
    void unregister() {
        try {
            server().unregisterMBean(name);
        } catch (InstanceNotFoundException e) {
            log.debug("pool '{}': its MBean {} was unregistered already", ds.getPoolName(), name);
        } catch (JMException e) {
            log.warn("pool '{}': could not unregister its MBean {}", ds.getPoolName(), name, e);
        }
    }

    /**
     * The name quoted only when it holds a character an unquoted ObjectName value cannot (JMX's
     * ObjectName grammar: comma, equals, colon, quote, line break; star and question mark would
     * make it a pattern), so that a plain name reads plainly: {@code name=orders}.
     */
    static ObjectName objectName(String poolName) {
        boolean plain = poolName.chars().noneMatch(ch -> ",=:\"*?\n".indexOf(ch) >= 0);
        try {
            return new ObjectName("dev.loompool:type=Pool,name=" + (plain ? poolName : ObjectName.quote(poolName)));
        } catch (JMException e) {
            throw new IllegalStateException("pool '" + poolName + "': no JMX name can be made of it", e);
        }
    }

    private static MBeanServer server() {
        return ManagementFactory.getPlatformMBeanServer();
    }

    /** Zeros until the pool runs: the MBean is registered just before the start opens connections. */
    private PoolStats stats() {
        return ds.isRunning() ? ds.getPool().stats() : new PoolStats(0, 0, 0, 0, ds.getMinSize(), ds.getMaxSize());
    }

    @Override
    public String getPoolName() {
        return ds.getPoolName();
    }

    // The limits JMX may change: each through the data source's setter, which validates the value
    // as configuration and applies it to the running pool in one change (StartedPool.change).

    @Override
    public int getMaxSize() {
        return ds.getMaxSize();
    }

    @Override
    public void setMaxSize(int maxSize) {
        ds.setMaxSize(maxSize);
        log.info("pool '{}': maxSize set to {} through JMX", ds.getPoolName(), maxSize);
    }

    @Override
    public int getMinSize() {
        return ds.getMinSize();
    }

    @Override
    public void setMinSize(int minSize) {
        ds.setMinSize(minSize);
        log.info("pool '{}': minSize set to {} through JMX", ds.getPoolName(), minSize);
    }

    @Override
    public long getAcquireTimeoutMillis() {
        return ds.getAcquireTimeout().toMillis();
    }

    @Override
    public void setAcquireTimeoutMillis(long acquireTimeoutMillis) {
        ds.setAcquireTimeout(Duration.ofMillis(acquireTimeoutMillis));
        log.info("pool '{}': acquireTimeout set to {} ms through JMX", ds.getPoolName(), acquireTimeoutMillis);
    }

    @Override
    public long getLeakDetectionThresholdMillis() {
        return ds.getLeakDetectionThreshold().toMillis();
    }

    @Override
    public void setLeakDetectionThresholdMillis(long leakDetectionThresholdMillis) {
        ds.setLeakDetectionThreshold(Duration.ofMillis(leakDetectionThresholdMillis));
        log.info("pool '{}': leakDetectionThreshold set to {} ms through JMX", ds.getPoolName(), leakDetectionThresholdMillis);
    }

    @Override
    public int getTotalConnections() {
        return stats().total();
    }

    @Override
    public int getIdleConnections() {
        return stats().idle();
    }

    @Override
    public int getActiveConnections() {
        return stats().inUse();
    }

    @Override
    public int getThreadsAwaitingConnection() {
        return stats().pending();
    }

    @Override
    public int getOpenHandles() {
        return ds.getOpenHandles();
    }

    @Override
    public Map<String, Integer> getPinnedConnections() {
        Map<String, Integer> byName = new LinkedHashMap<>();
        ds.getPinnedConnections().forEach((reason, count) -> byName.put(reason.name(), count));
        return byName;
    }

    @Override
    public long getReclaimedConnections() {
        return ds.getReclaimedConnections();
    }

    @Override
    public String getCircuitBreakerState() {
        return ds.isRunning() ? ds.getPool().state().name() : "ACTIVE";
    }

    @Override
    public List<BoundHandle> getBoundHandles() {
        return ds.getBoundHandles().stream().map(BoundHandle::of).toList();
    }

    @Override
    public int evictIdleConnections() {
        return ds.evictIdle();
    }

    @Override
    public void deactivatePool() {
        log.info("pool '{}': deactivatePool through JMX: failing fast until activatePool", ds.getPoolName());
        ds.getPool().deactivate();
    }

    @Override
    public void activatePool() {
        log.info("pool '{}': activatePool through JMX", ds.getPoolName());
        ds.getPool().activate();
    }
}
