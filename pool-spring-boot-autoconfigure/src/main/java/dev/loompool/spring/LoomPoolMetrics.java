package dev.loompool.spring;

import dev.loompool.CircuitBreakerState;
import dev.loompool.Pool;
import dev.loompool.PoolListener;
import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.PinReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
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
 * The pool's meters (DESIGN.md §5), named and described in {@link LoomPoolMeter}. Tag values are
 * lower case throughout. It listens to the pool from its start, and records
 * once a registry has bound it; the meters are removed when the context closes, or when a pool
 * made again under this closed one's name takes them over.
 */
final class LoomPoolMetrics implements PoolListener, MeterBinder {

    private final LoomPoolDataSource dataSource;
    /** The pool these meters are of: the data source's own, or one of its replicas' (DESIGN.md §7). */
    private final String poolName;
    private final boolean replica;
    /** Whether to publish HikariCP's meters too ({@code loompool.metrics.hikari-compatible}). */
    private final boolean hikariCompatible;
    private final List<Meter> registered = new CopyOnWriteArrayList<>();
    private volatile MeterRegistry registry;
    private volatile Tags tags = Tags.empty();
    private volatile Timer createTime;
    private volatile Timer waitTime;
    private volatile Timer useTime;
    private volatile Counter timeouts;
    private volatile Counter rejected;
    /** HikariCP's meters, fed by the same events; null unless {@link #hikariCompatible}. */
    private volatile HikariMeters hikari;
    /** Connections the pool opened at startup, before any registry bound these meters. */
    private final Queue<Long> createdBeforeBinding = new ConcurrentLinkedQueue<>();

    /**
     * The meters of the replica pool {@code replicaName} of {@code dataSource}; null: of its primary.
     * With {@code hikariCompatible}, HikariCP's meters too.
     */
    LoomPoolMetrics(LoomPoolDataSource dataSource, String replicaName, boolean hikariCompatible) {
        this.dataSource = dataSource;
        this.poolName = replicaName;
        this.replica = replicaName != null;
        this.hikariCompatible = hikariCompatible;
    }

    /** The pool measured: the primary's view, or the replica's of that name. */
    private Pool<?> pool(LoomPoolDataSource ds) {
        if (!replica) {
            return ds.getPool();
        }
        for (Pool<?> p : ds.getReplicaPools()) {
            if (p.name().equals(poolName)) {
                return p;
            }
        }
        throw new IllegalStateException("no replica pool " + poolName);
    }

    @Override
    public void bindTo(MeterRegistry meterRegistry) {
        LoomPoolDataSource ds = dataSource;
        String name = replica ? poolName : ds.getPoolName();
        Tags poolTags = Tags.of(LoomPoolMeter.POOL_NAME, name);
        tags = poolTags;
        gauge(meterRegistry, LoomPoolMeter.COUNT, Tags.of(LoomPoolMeter.STATE, "idle"), ds,
                d -> pool(d).stats().idle());
        gauge(meterRegistry, LoomPoolMeter.COUNT, Tags.of(LoomPoolMeter.STATE, "used"), ds,
                d -> pool(d).stats().inUse());
        gauge(meterRegistry, LoomPoolMeter.MAX, Tags.empty(), ds, d -> pool(d).stats().maxSize());
        gauge(meterRegistry, LoomPoolMeter.IDLE_MIN, Tags.empty(), ds, d -> pool(d).stats().minSize());
        gauge(meterRegistry, LoomPoolMeter.PENDING_REQUESTS, Tags.empty(), ds, d -> pool(d).stats().pending());
        for (CircuitBreakerState state : CircuitBreakerState.values()) {
            gauge(meterRegistry, LoomPoolMeter.BREAKER_STATE, Tags.of("state", lower(state)), ds,
                    d -> pool(d).state() == state ? 1 : 0);
        }
        if (!replica) { // handles belong to the data source, whichever pool they bind to
            gauge(meterRegistry, LoomPoolMeter.HANDLES_OPEN, Tags.empty(), ds, LoomPoolDataSource::getOpenHandles);
            for (PinReason reason : PinReason.values()) {
                gauge(meterRegistry, LoomPoolMeter.PINNED, Tags.of("reason", lower(reason)), ds,
                        d -> d.getPinnedConnections().get(reason));
                // Read from the pool's own sums at each scrape: the pool records a pin with no
                // callback, and its per-statement reasons with no clock reading (issue 28).
                registered.add(FunctionTimer.builder(LoomPoolMeter.PINNED_DURATION.meterName(), ds,
                                d -> d.getPinTimes().get(reason).count(),
                                d -> d.getPinTimes().get(reason).total().toNanos(), TimeUnit.NANOSECONDS)
                        .description(LoomPoolMeter.PINNED_DURATION.description())
                        .tags(poolTags.and("reason", lower(reason))).register(meterRegistry));
                registered.add(TimeGauge.builder(LoomPoolMeter.PINNED_DURATION_MAX.meterName(), ds,
                                TimeUnit.NANOSECONDS, d -> d.getPinTimes().get(reason).max().toNanos())
                        .description(LoomPoolMeter.PINNED_DURATION_MAX.description())
                        .tags(poolTags.and("reason", lower(reason))).register(meterRegistry));
            }
            registered.add(FunctionCounter.builder(LoomPoolMeter.RECLAIMED.meterName(), ds,
                            LoomPoolDataSource::getReclaimedConnections)
                    .description(LoomPoolMeter.RECLAIMED.description()).tags(poolTags).register(meterRegistry));
        }
        HikariMeters h = hikariCompatible ? new HikariMeters(meterRegistry, name, ds, d -> pool(d).stats()) : null;
        hikari = h;
        createTime = keep(timer(LoomPoolMeter.CREATE_TIME).tags(poolTags).register(meterRegistry));
        waitTime = keep(timer(LoomPoolMeter.WAIT_TIME).tags(poolTags).register(meterRegistry));
        Long early;
        while ((early = createdBeforeBinding.poll()) != null) {
            createTime.record(early, TimeUnit.NANOSECONDS);
            if (h != null) {
                h.created(early);
            }
        }
        useTime = keep(timer(LoomPoolMeter.USE_TIME).tags(poolTags).register(meterRegistry));
        timeouts = keep(counter(LoomPoolMeter.TIMEOUTS).tags(poolTags).register(meterRegistry));
        rejected = keep(counter(LoomPoolMeter.BREAKER_REJECTED).tags(poolTags).register(meterRegistry));
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
        return counter(LoomPoolMeter.BREAKER_TRANSITIONS)
                .tags(tags.and("from", lower(from), "to", lower(to))).register(r);
    }

    private static String lower(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }

    private <M extends Meter> M keep(M meter) {
        registered.add(meter);
        return meter;
    }

    private void gauge(MeterRegistry r, LoomPoolMeter meter, Tags extra, LoomPoolDataSource ds,
            ToDoubleFunction<LoomPoolDataSource> value) {
        // A closed pool reads as NaN, the gauge convention for "no value".
        ToDoubleFunction<LoomPoolDataSource> guarded = d -> d.isRunning() ? value.applyAsDouble(d) : Double.NaN;
        registered.add(Gauge.builder(meter.meterName(), ds, guarded).description(meter.description())
                .tags(tags.and(extra)).register(r));
    }

    private static Timer.Builder timer(LoomPoolMeter meter) {
        return Timer.builder(meter.meterName()).description(meter.description());
    }

    private static Counter.Builder counter(LoomPoolMeter meter) {
        return Counter.builder(meter.meterName()).description(meter.description());
    }

    @Override
    public void onCreated(long createNanos) {
        Timer t = createTime;
        if (t != null) {
            t.record(createNanos, TimeUnit.NANOSECONDS);
            HikariMeters h = hikari; // set before createTime: a create is in both or queued for both
            if (h != null) {
                h.created(createNanos);
            }
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
        HikariMeters h = hikari;
        if (h != null) {
            h.acquired(waitNanos);
        }
    }

    @Override
    public void onReleased(long useNanos) {
        Timer t = useTime;
        if (t != null) {
            t.record(useNanos, TimeUnit.NANOSECONDS);
        }
        HikariMeters h = hikari;
        if (h != null) {
            h.released(useNanos);
        }
    }

    @Override
    public void onTimedOut(long waitNanos) {
        Counter c = timeouts;
        if (c != null) {
            c.increment();
        }
        HikariMeters h = hikari;
        if (h != null) {
            h.timedOut(waitNanos);
        }
    }

    @Override
    public void onAcquireFailed(long waitNanos, Throwable error) {
        HikariMeters h = hikari;
        if (h != null) {
            h.timedOut(waitNanos);
        }
    }

    @Override
    public void onRejected(CircuitBreakerState state) {
        Counter c = rejected;
        if (c != null) {
            c.increment();
        }
        HikariMeters h = hikari;
        if (h != null) {
            h.timedOut(0); // refused without waiting
        }
    }

    @Override
    public void onStateChanged(CircuitBreakerState from, CircuitBreakerState to) {
        MeterRegistry r = registry;
        if (r != null) {
            transitions(r, from, to).increment(); // registered at bind: this finds it
        }
    }

    /** The name the meters are tagged with: the pool's, or its replica's. */
    String meterPoolName() {
        return replica ? poolName : dataSource.getPoolName();
    }

    /** Whether these are the meters of a pool that has closed, whose gauges read NaN. */
    boolean ofAClosedPool() {
        return dataSource.isClosed();
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
        HikariMeters h = hikari;
        hikari = null;
        if (r != null) {
            registered.forEach(r::remove);
            if (h != null) {
                h.remove(r);
            }
        }
        registered.clear();
    }
}
