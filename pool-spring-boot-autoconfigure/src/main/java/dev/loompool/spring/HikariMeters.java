package dev.loompool.spring;

import dev.loompool.PoolStats;
import dev.loompool.jdbc.LoomPoolDataSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;

/**
 * One pool's {@link HikariMeter}s in one registry. {@link LoomPoolMetrics} feeds them from the same
 * pool events as its OpenTelemetry timers, so the opt-in adds no listener to the pool's hot path,
 * only one record call per event.
 */
final class HikariMeters {

    private final List<Meter> registered = new CopyOnWriteArrayList<>();
    private final Timer acquire;
    private final Timer usage;
    private final Timer creation;
    private final Counter timeout;

    /**
     * Registers the meters of the pool {@code poolName}. The gauges are built on {@code ds}, not on a
     * lambda, since a gauge keeps only a weak reference to its object: the context holds the data source.
     */
    HikariMeters(MeterRegistry registry, String poolName, LoomPoolDataSource ds,
            Function<LoomPoolDataSource, PoolStats> stats) {
        Tags tags = Tags.of(HikariMeter.POOL, poolName);
        gauge(registry, HikariMeter.TOTAL, tags, ds, stats, PoolStats::total);
        gauge(registry, HikariMeter.ACTIVE, tags, ds, stats, PoolStats::inUse);
        gauge(registry, HikariMeter.IDLE, tags, ds, stats, PoolStats::idle);
        gauge(registry, HikariMeter.PENDING, tags, ds, stats, PoolStats::pending);
        gauge(registry, HikariMeter.MAX, tags, ds, stats, PoolStats::maxSize);
        gauge(registry, HikariMeter.MIN, tags, ds, stats, PoolStats::minSize);
        acquire = keep(timer(HikariMeter.ACQUIRE, tags, registry));
        usage = keep(timer(HikariMeter.USAGE, tags, registry));
        creation = keep(timer(HikariMeter.CREATION, tags, registry));
        timeout = keep(Counter.builder(HikariMeter.TIMEOUT.meterName()).description(HikariMeter.TIMEOUT.description())
                .tags(tags).register(registry));
    }

    private void gauge(MeterRegistry registry, HikariMeter meter, Tags tags, LoomPoolDataSource ds,
            Function<LoomPoolDataSource, PoolStats> stats, ToIntFunction<PoolStats> count) {
        // A closed pool reads as NaN, as loompool's own gauges do (HikariCP removes its meters at close).
        ToDoubleFunction<LoomPoolDataSource> value = d -> d.isRunning() ? count.applyAsInt(stats.apply(d)) : Double.NaN;
        keep(Gauge.builder(meter.meterName(), ds, value).description(meter.description()).tags(tags)
                .register(registry));
    }

    private static Timer timer(HikariMeter meter, Tags tags, MeterRegistry registry) {
        return Timer.builder(meter.meterName()).description(meter.description()).tags(tags).register(registry);
    }

    private <M extends Meter> M keep(M meter) {
        registered.add(meter);
        return meter;
    }

    void created(long createNanos) {
        creation.record(createNanos, TimeUnit.NANOSECONDS);
    }

    void acquired(long waitNanos) {
        acquire.record(waitNanos, TimeUnit.NANOSECONDS);
    }

    void released(long useNanos) {
        usage.record(useNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * An acquire that failed. HikariCP has one outcome for every failed getConnection (a timeout,
     * after connectionTimeout, whatever the cause); loompool fails sooner when the connect itself
     * fails or its breaker is open. Counting those too keeps {@code rate(hikaricp_connections_timeout_total)}
     * alerts firing when the database goes away. As HikariCP, it also records the wait in the acquire timer.
     */
    void timedOut(long waitNanos) {
        timeout.increment();
        acquire.record(waitNanos, TimeUnit.NANOSECONDS);
    }

    void remove(MeterRegistry registry) {
        registered.forEach(registry::remove);
        registered.clear();
    }
}
