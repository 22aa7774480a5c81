package dev.loompool.engine;

import dev.loompool.CircuitBreakerStrategy;
import dev.loompool.Pool;
import dev.loompool.PoolClock;
import dev.loompool.PoolListener;
import dev.loompool.ResourceCheck;
import dev.loompool.ResourceDestructor;
import dev.loompool.ResourceFactory;
import java.time.Duration;
import java.util.List;

/**
 * What {@link dev.loompool.PoolBuilder} validated, handed to the engine: the one arrow from the
 * API into the engine is {@link #start()}, the builder's factory.
 */
public record PoolSettings<T>(
        String name,
        ResourceFactory<T> factory,
        ResourceDestructor<T> destructor,
        ResourceCheck<T> healthcheck,
        ResourceCheck<T> beforeAcquire,
        ResourceCheck<T> beforeRelease,
        int minSize,
        int maxSize,
        Duration healthcheckInterval,
        Duration acquireTimeout,
        CircuitBreakerStrategy circuitBreakerStrategy,
        PoolClock clock,
        List<PoolListener> listeners) {

    public PoolSettings {
        listeners = List.copyOf(listeners);
    }

    /** Builds the pool and creates {@code minSize} resources (destroying them again if one fails). */
    public Pool<T> start() {
        DefaultPool<T> pool = new DefaultPool<>(this);
        Prewarm.run(pool, minSize);
        return pool;
    }

    /** Nanoseconds of {@code d}, capped far below overflow so that sums of them stay exact. */
    public static long saturatedNanos(Duration d) {
        return d.compareTo(Duration.ofDays(10_000)) > 0 ? Long.MAX_VALUE / 4 : d.toNanos();
    }
}
