package dev.loompool;

import dev.loompool.engine.PoolSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Configures and builds a {@link Pool}. {@link #build()} validates every setting, naming the one
 * that is wrong, and then creates {@code minSize} resources on the calling thread.
 *
 * @param <T> the resource type
 */
public final class PoolBuilder<T> {

    private static final AtomicInteger POOL_NUMBER = new AtomicInteger();

    private final ResourceFactory<T> factory;
    private ResourceDestructor<T> destructor;
    private ResourceCheck<T> healthcheck;
    private ResourceCheck<T> beforeAcquire;
    private ResourceCheck<T> beforeRelease;
    private int minSize = 0;
    private int maxSize = 10;
    private Duration healthcheckInterval = Duration.ZERO;
    private Duration acquireTimeout = Duration.ofSeconds(30);
    private CircuitBreakerStrategy circuitBreakerStrategy;
    private String name;
    private PoolClock clock = PoolClock.SYSTEM;
    private final List<PoolListener> listeners = new ArrayList<>(2);

    PoolBuilder(ResourceFactory<T> factory) {
        this.factory = Objects.requireNonNull(factory, "factory");
    }

    /** Called on every resource the pool drops. Default: none. */
    public PoolBuilder<T> destructor(ResourceDestructor<T> destructor) {
        this.destructor = destructor;
        return this;
    }

    /** Run on idle resources every {@link #healthcheckInterval}; false or an exception destroys one. */
    public PoolBuilder<T> healthcheck(ResourceCheck<T> healthcheck) {
        this.healthcheck = healthcheck;
        return this;
    }

    /** Run on an idle resource before it is lent out (not on fresh ones); false destroys it. */
    public PoolBuilder<T> beforeAcquire(ResourceCheck<T> beforeAcquire) {
        this.beforeAcquire = beforeAcquire;
        return this;
    }

    /** Run on every returned resource; false destroys it and counts a circuit-breaker failure. */
    public PoolBuilder<T> beforeRelease(ResourceCheck<T> beforeRelease) {
        this.beforeRelease = beforeRelease;
        return this;
    }

    /** Resources kept even when idle, created at {@link #build()} and refilled. Default 0. */
    public PoolBuilder<T> minSize(int minSize) {
        this.minSize = minSize;
        return this;
    }

    /** The most resources that may exist at once. Default 10. */
    public PoolBuilder<T> maxSize(int maxSize) {
        this.maxSize = maxSize;
        return this;
    }

    /** How often idle resources are checked. Default {@link Duration#ZERO}: never. */
    public PoolBuilder<T> healthcheckInterval(Duration healthcheckInterval) {
        this.healthcheckInterval = healthcheckInterval;
        return this;
    }

    /** How long {@link Pool#acquire()} waits. Default 30 s. */
    public PoolBuilder<T> acquireTimeout(Duration acquireTimeout) {
        this.acquireTimeout = acquireTimeout;
        return this;
    }

    /** Moves the circuit breaker automatically. Default: none, the breaker moves only by hand. */
    public PoolBuilder<T> circuitBreakerStrategy(CircuitBreakerStrategy strategy) {
        this.circuitBreakerStrategy = strategy;
        return this;
    }

    /** The name used in messages, thread names and metrics. Default {@code loompool-N}. */
    public PoolBuilder<T> name(String name) {
        this.name = name;
        return this;
    }

    /** The source of time for timeouts. Default {@link PoolClock#SYSTEM}. */
    public PoolBuilder<T> clock(PoolClock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /** Adds a listener; several may be added and are called in order. */
    public PoolBuilder<T> listener(PoolListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
        return this;
    }

    /**
     * Validates the settings and builds the pool, creating {@code minSize} resources first.
     *
     * @throws IllegalArgumentException naming the setting that is out of range
     * @throws PoolException whose cause is the factory's exception, if pre-warming failed; the
     *     resources already created are destroyed
     */
    public Pool<T> build() {
        if (minSize < 0) {
            throw new IllegalArgumentException("minSize must be >= 0, was " + minSize);
        }
        if (maxSize < 1) {
            throw new IllegalArgumentException("maxSize must be >= 1, was " + maxSize);
        }
        if (minSize > maxSize) {
            throw new IllegalArgumentException(
                    "minSize must be <= maxSize, was minSize=" + minSize + ", maxSize=" + maxSize);
        }
        requireNonNegative("healthcheckInterval", healthcheckInterval);
        requireNonNegative("acquireTimeout", acquireTimeout);
        if (name == null || name.isBlank()) {
            name = "loompool-" + POOL_NUMBER.incrementAndGet();
        }
        return new PoolSettings<>(name, factory, destructor, healthcheck, beforeAcquire, beforeRelease, minSize,
                maxSize, healthcheckInterval, acquireTimeout, circuitBreakerStrategy, clock, listeners).start();
    }

    private static void requireNonNegative(String setting, Duration value) {
        if (value == null || value.isNegative()) {
            throw new IllegalArgumentException(setting + " must be zero or positive, was " + value);
        }
    }
}
