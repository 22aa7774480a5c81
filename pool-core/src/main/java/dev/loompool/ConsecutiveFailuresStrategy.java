package dev.loompool;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The built-in strategy: open after {@code threshold} failures in a row, probe once per
 * {@code openDuration}. Reports that arrive while the circuit is INACTIVE come from leases taken
 * before it opened and say nothing about the backend now, so they are ignored.
 */
final class ConsecutiveFailuresStrategy implements CircuitBreakerStrategy {

    /** openedAt when this strategy did not open the circuit (a manual deactivate stays put). */
    private static final long NOT_OPENED = Long.MIN_VALUE;

    private final int threshold;
    private final long openNanos;
    private final PoolClock clock;
    private final AtomicInteger failures = new AtomicInteger();
    private final AtomicLong openedAt = new AtomicLong(NOT_OPENED);

    ConsecutiveFailuresStrategy(int threshold, Duration openDuration, PoolClock clock) {
        if (threshold < 1) {
            throw new IllegalArgumentException("threshold must be >= 1, was " + threshold);
        }
        if (openDuration == null || openDuration.isNegative()) {
            throw new IllegalArgumentException("openDuration must be zero or positive, was " + openDuration);
        }
        if (clock == null) {
            throw new IllegalArgumentException("clock must not be null");
        }
        this.threshold = threshold;
        this.openNanos = PoolBuilder.saturatedNanos(openDuration);
        this.clock = clock;
    }

    @Override
    public void reportSuccess(Pool<?> pool) {
        switch (pool.state()) {
            case ACTIVE:
                // Read before writing: successes are the hot path and a write would bounce the cache line.
                if (failures.get() != 0) {
                    failures.set(0);
                }
                break;
            case RECOVERING:
                failures.set(0);
                openedAt.set(NOT_OPENED);
                pool.activate();
                break;
            default:
                break;
        }
    }

    @Override
    public void reportFailure(Pool<?> pool, Throwable error) {
        switch (pool.state()) {
            case ACTIVE:
                if (failures.incrementAndGet() >= threshold) {
                    open(pool);
                }
                break;
            case RECOVERING:
                open(pool);
                break;
            default:
                break;
        }
    }

    @Override
    public void reportRejected(Pool<?> pool) {
        long opened = openedAt.get();
        // The compare-and-set lets exactly one of the rejected callers move the circuit on.
        if (opened != NOT_OPENED && clock.nanoTime() - opened >= openNanos
                && openedAt.compareAndSet(opened, NOT_OPENED)) {
            pool.recover();
        }
    }

    private void open(Pool<?> pool) {
        failures.set(0);
        openedAt.set(clock.nanoTime());
        pool.deactivate();
    }

    @Override
    public String toString() {
        return "consecutiveFailures(threshold=" + threshold + ", openDuration=" + Duration.ofNanos(openNanos) + ")";
    }
}
