package dev.loompool.spring;

import dev.loompool.jdbc.BindObserver;
import dev.loompool.jdbc.LoomPoolDataSource;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.jdbc.DataSourceUnwrapper;

/**
 * Wires every {@link LoomPoolDataSource} bean of the context, however it was made (auto-configured,
 * a user's {@code @Bean}, {@code DataSourceBuilder}, several at once): Spring transaction pinning
 * and the Micrometer meters. Both must reach the pool before it starts, so it runs before the
 * bean's initialisation; the auto-configured pool is wired by its own bean method, which starts it
 * right after, and is skipped here. A pool the application started itself can no longer be wired:
 * that is said in one WARN line, since it would run without transaction pinning.
 */
final class PoolWiring implements BeanPostProcessor {

    private static final Log logger = LogFactory.getLog(PoolWiring.class);

    private final ObjectProvider<BindObserver> bindObserver;
    private final ObjectProvider<PoolMeters> meters;
    /** The default pool name, which a pool of its own bean gives up for the bean's name. */
    private static final String DEFAULT_NAME = new LoomPoolDataSource().getPoolName();

    /** The pools wired so far, by pool name. */
    private final Map<String, LoomPoolDataSource> wired = new HashMap<>();
    /** Pool names by the name Boot's {@code jdbc.connections.*} meters give the bean. */
    private final Map<String, String> bootMeterNames = new ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();

    PoolWiring(ObjectProvider<BindObserver> bindObserver, ObjectProvider<PoolMeters> meters) {
        this.bindObserver = bindObserver;
        this.meters = meters;
    }

    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (bean instanceof LoomPoolDataSource ds) {
            wire(ds, beanName);
        }
        return bean;
    }

    /**
     * Wires {@code ds} once: the transaction pinning unless it has its own observer, and the meters.
     * A pool left with the default name takes its bean's name, so that two pools never share their
     * meters and endpoint entry; two pools named alike by the application stop the startup.
     */
    void wire(LoomPoolDataSource ds, String beanName) {
        boolean started = ds.isRunning() || ds.isClosed();
        lock.lock();
        try {
            if (wired.containsValue(ds)) {
                return;
            }
            if (!started && DEFAULT_NAME.equals(ds.getPoolName()) && !"dataSource".equals(beanName)) {
                ds.setPoolName(beanName);
            }
            LoomPoolDataSource namesake = wired.get(ds.getPoolName());
            if (namesake != null && namesake.isClosed()) { // made again after a close (a refresh-scoped bean)
                namesake = null;
            }
            String sharedName = namesake != null ? ds.getPoolName() : sharedWithAReplica(ds);
            if (sharedName == null) {
                wired.put(ds.getPoolName(), ds);
            }
            bootMeterNames.putIfAbsent(bootMeterName(beanName), ds.getPoolName());
            if (sharedName != null) {
                throw new IllegalStateException("Two loompools are named '" + sharedName + "' (the second is bean '"
                        + beanName + "'" + (sharedName.equals(ds.getPoolName()) && namesake != null ? ""
                                : "; a replica's pool is named <pool-name>-replica-N") + "): their meters, health and"
                        + " endpoint entries would mix. Give each its own name (loompool.pool-name, or setPoolName on the bean).");
            }
        } finally {
            lock.unlock();
        }
        if (started) {
            logger.warn("loompool '" + ds.getPoolName() + "' (bean '" + beanName + "') was started before Spring"
                    + " could wire it: it has no Spring transaction pinning and no wait, use and create timers."
                    + " Let the pool start on its first getConnection() instead of calling start() in the bean method.");
            meters.ifAvailable(m -> {
                m.add(ds);
                ds.getReplicaPools().forEach(replica -> m.addReplica(ds, replica.name()));
            });
            return;
        }
        if (ds.getBindObserver() == null) {
            BindObserver observer = bindObserver.getIfUnique();
            if (observer != null) {
                ds.setBindObserver(observer);
            }
        }
        meters.ifAvailable(m -> {
            ds.addPoolListener(m.add(ds));
            ds.addReplicaPoolListeners(replicaName -> m.addReplica(ds, replicaName));
        });
    }

    /** The names {@code ds}'s meters are tagged with: its own and its replicas' ({@code <name>-replica-N}). */
    private static Set<String> meterNames(LoomPoolDataSource ds) {
        Set<String> names = new HashSet<>();
        names.add(ds.getPoolName());
        for (int i = 1; i <= ds.getReplicas().size(); i++) {
            names.add(ds.getPoolName() + "-replica-" + i);
        }
        return names;
    }

    /**
     * A name {@code ds} or one of its replicas would share with a running pool wired before, or
     * with one of its replicas (an application pool named {@code orders-replica-1} beside the
     * replica of {@code orders}); null if none. Under the lock.
     */
    private String sharedWithAReplica(LoomPoolDataSource ds) {
        Set<String> mine = meterNames(ds);
        for (LoomPoolDataSource other : wired.values()) {
            if (other == ds || other.isClosed()) {
                continue;
            }
            for (String name : meterNames(other)) {
                if (mine.contains(name)) {
                    return name;
                }
            }
        }
        return null;
    }

    /**
     * The pool's name for the {@code name} tag Boot's {@code jdbc.connections.*} meters derive from a
     * bean name, or null when that bean is not a wired pool.
     */
    String poolNameForBootMeterName(String bootName) {
        return bootName == null ? null : bootMeterNames.get(bootName);
    }

    /** As Boot's DataSourcePoolMetricsAutoConfiguration names a data source: its bean name without a "dataSource" suffix. */
    static String bootMeterName(String beanName) {
        String suffix = "datasource";
        if (beanName.length() > suffix.length() && beanName.toLowerCase(Locale.ROOT).endsWith(suffix)) {
            return beanName.substring(0, beanName.length() - suffix.length());
        }
        return beanName;
    }

    /** Every data source bean that is, or wraps, a loompool, by bean name. */
    static Map<String, LoomPoolDataSource> pools(ListableBeanFactory beans) {
        Map<String, LoomPoolDataSource> pools = new LinkedHashMap<>();
        beans.getBeansOfType(DataSource.class).forEach((name, ds) -> {
            LoomPoolDataSource loom = DataSourceUnwrapper.unwrap(ds, LoomPoolDataSource.class);
            if (loom != null) {
                pools.put(name, loom);
            }
        });
        return pools;
    }
}
