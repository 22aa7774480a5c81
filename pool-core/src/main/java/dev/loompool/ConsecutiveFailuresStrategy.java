package dev.loompool;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The built-in strategy: open after {@code threshold} failures in a row, then probe with an
 * exponential back-off: the first probe after {@code openDuration / 64}, each failed one doubling
 * the wait, never more than {@code openDuration}. A fixed wait would shut a database that restarts
 * in a few hundred milliseconds out for the whole open duration; with the doubling, an outage that
 * ends within the open duration is noticed after at most about its own length again (a 250 ms
 * restart: after 78 or 156 ms; the default 5 s wait: after up to 5 s). It costs a few extra connect
 * attempts in a long outage: seven in the first ten seconds instead of two. Reports that arrive while the circuit is INACTIVE come
 * from leases taken before it opened and say nothing about the backend now, so they are ignored.
 */
final class ConsecutiveFailuresStrategy implements CircuitBreakerStrategy {

    /** openedAt when this strategy did not open the circuit (a manual deactivate stays put). */
    private static final long NOT_OPENED = Long.MIN_VALUE;
    /** The first probe waits openDuration >> FIRST_WAIT_SHIFT: 1/64 of it, 78 ms of the default 5 s. */
    private static final int FIRST_WAIT_SHIFT = 6;

    private final int threshold;
    private final long openNanos;
    private final PoolClock clock;
    private final AtomicInteger failures = new AtomicInteger();
    private final AtomicLong openedAt = new AtomicLong(NOT_OPENED);
    /** How long the current opening lasts; written before openedAt, read after it. */
    private volatile long waitNanos;

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
        // capped far below overflow, as the engine caps its durations, so that sums stay exact
        this.openNanos = openDuration.compareTo(Duration.ofDays(10_000)) > 0 ? Long.MAX_VALUE / 4 : openDuration.toNanos();
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
                waitNanos = 0;
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
                    open(pool, firstWait());
                }
                break;
            case RECOVERING:
                // Only the probe reports in RECOVERING: its failure doubles the wait, up to openDuration.
                long wait = waitNanos;
                open(pool, wait == 0 ? firstWait() : wait >= openNanos / 2 ? openNanos : wait * 2);
                break;
            default:
                break;
        }
    }

    @Override
    public void reportRejected(Pool<?> pool) {
        long opened = openedAt.get();
        // The compare-and-set lets exactly one of the rejected callers move the circuit on.
        if (opened != NOT_OPENED && clock.nanoTime() - opened >= waitNanos
                && openedAt.compareAndSet(opened, NOT_OPENED)) {
            pool.recover();
        }
    }

    private long firstWait() {
        return openNanos >> FIRST_WAIT_SHIFT;
    }

    private void open(Pool<?> pool, long wait) {
        failures.set(0);
        waitNanos = wait;
        openedAt.set(clock.nanoTime());
        pool.deactivate();
    }

    @Override
    public String toString() {
        return "consecutiveFailures(threshold=" + threshold + ", openDuration=" + Duration.ofNanos(openNanos) + ")";
    }
}
