package dev.loompool.spring;

import dev.loompool.CircuitBreakerState;
import dev.loompool.PoolListener;
import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.PinReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The pool's meters (DESIGN.md §5): the OpenTelemetry {@code db.client.connection.*} names and
 * loompool's own, tagged {@code db.client.connection.pool.name} (the current OpenTelemetry
 * attribute; {@code pool.name} and {@code state} are its deprecated spellings). Tag values are
 * lower case throughout. It listens to the pool from its start, and records
 * once a registry has bound it; the meters are removed when the pool closes.
 */
final class LoomPoolMetrics implements PoolListener, MeterBinder {

    static final String POOL_NAME = "db.client.connection.pool.name";
    static final String STATE = "db.client.connection.state";

    // The meters: OpenTelemetry's database-client names, then loompool's own (README, "Metrics").
    static final String COUNT = "db.client.connection.count";
    static final String MAX = "db.client.connection.max";
    static final String IDLE_MIN = "db.client.connection.idle.min";
    static final String PENDING_REQUESTS = "db.client.connection.pending_requests";
    static final String CREATE_TIME = "db.client.connection.create_time";
    static final String WAIT_TIME = "db.client.connection.wait_time";
    static final String USE_TIME = "db.client.connection.use_time";
    static final String TIMEOUTS = "db.client.connection.timeouts";
    static final String HANDLES_OPEN = "loompool.handles.open";
    static final String PINNED = "loompool.connections.pinned";
    static final String RECLAIMED = "loompool.connections.reclaimed";
    static final String BREAKER_STATE = "loompool.circuitbreaker.state";
    static final String BREAKER_TRANSITIONS = "loompool.circuitbreaker.transitions";
    static final String BREAKER_REJECTED = "loompool.circuitbreaker.rejected";

    private final LoomPoolDataSource dataSource;
    private final List<Meter> registered = new CopyOnWriteArrayList<>();
    private volatile MeterRegistry registry;
    private volatile Tags tags = Tags.empty();
    private volatile Timer createTime;
    private volatile Timer waitTime;
    private volatile Timer useTime;
    private volatile Counter timeouts;
    private volatile Counter rejected;
    /** Connections the pool opened at startup, before any registry bound these meters. */
    private final Queue<Long> createdBeforeBinding = new ConcurrentLinkedQueue<>();

    LoomPoolMetrics(LoomPoolDataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public void bindTo(MeterRegistry meterRegistry) {
        LoomPoolDataSource ds = dataSource;
        Tags poolTags = Tags.of(POOL_NAME, ds.getPoolName());
        tags = poolTags;
        gauge(meterRegistry, COUNT, "Connections by state", Tags.of(STATE, "idle"), ds,
                d -> d.getPool().stats().idle());
        gauge(meterRegistry, COUNT, "Connections by state", Tags.of(STATE, "used"), ds,
                d -> d.getPool().stats().inUse());
        gauge(meterRegistry, MAX, "The most connections allowed", Tags.empty(), ds,
                d -> d.getPool().stats().maxSize());
        gauge(meterRegistry, IDLE_MIN, "Connections kept even when idle", Tags.empty(), ds,
                d -> d.getPool().stats().minSize());
        gauge(meterRegistry, PENDING_REQUESTS, "Requests waiting for a connection",
                Tags.empty(), ds, d -> d.getPool().stats().pending());
        gauge(meterRegistry, HANDLES_OPEN,
                "Logical connections open that have used a physical connection, bound or not", Tags.empty(), ds,
                LoomPoolDataSource::getOpenHandles);
        for (PinReason reason : PinReason.values()) {
            gauge(meterRegistry, PINNED, "Physical connections pinned, by reason",
                    Tags.of("reason", lower(reason)), ds,
                    d -> d.getPinnedConnections().get(reason));
        }
        for (CircuitBreakerState state : CircuitBreakerState.values()) {
            gauge(meterRegistry, BREAKER_STATE, "1 for the circuit breaker's current state",
                    Tags.of("state", lower(state)), ds, d -> d.getPool().state() == state ? 1 : 0);
        }
        registered.add(FunctionCounter.builder(RECLAIMED, ds,
                        LoomPoolDataSource::getReclaimedConnections)
                .description("Connections reclaimed from handles dropped without close, "
                        + "or (reclaimOnOwnerExit) whose last user's thread ended")
                .tags(poolTags).register(meterRegistry));
        createTime = keep(Timer.builder(CREATE_TIME).description("Time to open a connection")
                .tags(poolTags).register(meterRegistry));
        waitTime = keep(Timer.builder(WAIT_TIME).description("Time to get a connection")
                .tags(poolTags).register(meterRegistry));
        Long early;
        while ((early = createdBeforeBinding.poll()) != null) {
            createTime.record(early, TimeUnit.NANOSECONDS);
        }
        useTime = keep(Timer.builder(USE_TIME).description("Time a connection stays bound")
                .tags(poolTags).register(meterRegistry));
        timeouts = keep(Counter.builder(TIMEOUTS).description("Acquire timeouts")
                .tags(poolTags).register(meterRegistry));
        rejected = keep(Counter.builder(BREAKER_REJECTED)
                .description("Requests failed at once by the open circuit breaker").tags(poolTags).register(meterRegistry));
        // Every legal pair up front: dashboards can rate() them from zero, before the first change.
        for (CircuitBreakerState from : CircuitBreakerState.values()) {
            for (CircuitBreakerState to : CircuitBreakerState.values()) {
                if (from != to) {
                    keep(transitions(meterRegistry, from, to));
                }
            }
        }
        registry = meterRegistry;
    }

    private Counter transitions(MeterRegistry r, CircuitBreakerState from, CircuitBreakerState to) {
        return Counter.builder(BREAKER_TRANSITIONS).description("Circuit breaker state changes")
                .tags(tags.and("from", lower(from), "to", lower(to))).register(r);
    }

    private static String lower(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }

    private <M extends Meter> M keep(M meter) {
        registered.add(meter);
        return meter;
    }

    private void gauge(MeterRegistry r, String name, String description, Tags extra, LoomPoolDataSource ds,
            ToDoubleFunction<LoomPoolDataSource> value) {
        // A closed pool reads as NaN, the gauge convention for "no value".
        ToDoubleFunction<LoomPoolDataSource> guarded = d -> d.isRunning() ? value.applyAsDouble(d) : Double.NaN;
        registered.add(Gauge.builder(name, ds, guarded).description(description).tags(tags.and(extra)).register(r));
    }

    @Override
    public void onCreated(long createNanos) {
        Timer t = createTime;
        if (t != null) {
            t.record(createNanos, TimeUnit.NANOSECONDS);
        } else if (registry == null && createdBeforeBinding.size() < 1_000) {
            createdBeforeBinding.add(createNanos); // the pre-warm runs before metrics are bound
        }
    }

    @Override
    public void onAcquired(long waitNanos) {
        Timer t = waitTime;
        if (t != null) {
            t.record(waitNanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void onReleased(long useNanos) {
        Timer t = useTime;
        if (t != null) {
            t.record(useNanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void onTimedOut(long waitNanos) {
        Counter c = timeouts;
        if (c != null) {
            c.increment();
        }
    }

    @Override
    public void onRejected(CircuitBreakerState state) {
        Counter c = rejected;
        if (c != null) {
            c.increment();
        }
    }

    @Override
    public void onStateChanged(CircuitBreakerState from, CircuitBreakerState to) {
        MeterRegistry r = registry;
        if (r != null) {
            transitions(r, from, to).increment(); // registered at bind: this finds it
        }
    }

    /** Removes the meters: the context is closing its pools, and a dead pool's gauges must not linger. */
    void remove() {
        MeterRegistry r = registry;
        registry = null;
        createTime = null;
        waitTime = null;
        useTime = null;
        timeouts = null;
        rejected = null;
        if (r != null) {
            registered.forEach(r::remove);
        }
        registered.clear();
    }
}
