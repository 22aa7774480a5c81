package dev.loompool.spring;

import dev.loompool.jdbc.LoomPoolDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.springframework.beans.factory.DisposableBean;

/**
 * The meters of every pool {@link PoolWiring} wired. Boot binds this one binder to the registry,
 * usually after the pools exist; a pool created later (a lazy bean) is bound as it arrives.
 */
final class LoomPoolMeters implements PoolMeters, MeterBinder, DisposableBean {

    private final ReentrantLock lock = new ReentrantLock();
    /** {@code loompool.metrics.hikari-compatible}: every pool publishes HikariCP's meters too. */
    private final boolean hikariCompatible;
    private final List<LoomPoolMetrics> pools = new ArrayList<>();
    private MeterRegistry registry;

    LoomPoolMeters(boolean hikariCompatible) {
        this.hikariCompatible = hikariCompatible;
    }

    /** The meters of {@code ds}, bound now if a registry is already known; also its pool listener. */
    @Override
    public LoomPoolMetrics add(LoomPoolDataSource ds) {
        return add(new LoomPoolMetrics(ds, null, hikariCompatible));
    }

    @Override
    public LoomPoolMetrics addReplica(LoomPoolDataSource ds, String replicaName) {
        return add(new LoomPoolMetrics(ds, replicaName, hikariCompatible));
    }

    private LoomPoolMetrics add(LoomPoolMetrics metrics) {
        lock.lock();
        try {
            // A pool made again under a closed one's name (a refresh-scoped bean): the closed one's
            // meters go first, else the registry would hand the new pool the old ids, reading NaN.
            pools.removeIf(old -> {
                boolean replaced = old.ofAClosedPool() && old.meterPoolName().equals(metrics.meterPoolName());
                if (replaced) {
                    old.remove();
                }
                return replaced;
            });
            pools.add(metrics);
            if (registry != null) {
                metrics.bindTo(registry);
            }
        } finally {
            lock.unlock();
        }
        return metrics;
    }

    @Override
    public void bindTo(MeterRegistry meterRegistry) {
        lock.lock();
        try {
            registry = meterRegistry;
            pools.forEach(p -> p.bindTo(meterRegistry));
        } finally {
            lock.unlock();
        }
    }

    /** The context closes its pools: their gauges must not linger in a registry that outlives it. */
    @Override
    public void destroy() {
        lock.lock();
        try {
            pools.forEach(LoomPoolMetrics::remove);
            pools.clear();
            registry = null;
        } finally {
            lock.unlock();
        }
    }
}
