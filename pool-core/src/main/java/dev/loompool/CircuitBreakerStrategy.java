package dev.loompool;

import java.time.Duration;

/**
 * Decides when a pool's circuit breaker moves. The pool reports outcomes; the strategy calls
 * {@link Pool#activate()}, {@link Pool#deactivate()} or {@link Pool#recover()}.
 *
 * <p>Failures are factory failures, {@code beforeRelease} rejections and
 * {@link Lease#invalidate() invalidations}; successes are releases that pass
 * {@code beforeRelease}. Methods are called on the caller's thread, outside the pool's lock, and
 * must not block. A strategy instance holds the state of one pool: give each pool its own.
 */
public interface CircuitBreakerStrategy {

    /** A release passed {@code beforeRelease}. */
    void reportSuccess(Pool<?> pool);

    /** A resource failed: it could not be created, or it was rejected on release or invalidated. */
    void reportFailure(Pool<?> pool, Throwable error);

    /**
     * An acquire found the circuit INACTIVE and is about to fail. The strategy may call
     * {@link Pool#recover()} here, which lets this acquire go through as the probe.
     */
    default void reportRejected(Pool<?> pool) {
    }

    /**
     * Opens the circuit after {@code threshold} consecutive failures, and lets one probe through
     * after {@code openDuration / 64}: a successful probe closes the circuit, a failed one opens it
     * again for twice as long as the last time, never longer than {@code openDuration}. A database
     * that restarts in a moment is used again within a moment; one that stays down sees one
     * connect attempt per {@code openDuration} once the back-off has reached it.
     */
    static CircuitBreakerStrategy consecutiveFailures(int threshold, Duration openDuration) {
        return consecutiveFailures(threshold, openDuration, PoolClock.SYSTEM);
    }

    /** As {@link #consecutiveFailures(int, Duration)}, measuring the open duration on {@code clock}. */
    static CircuitBreakerStrategy consecutiveFailures(int threshold, Duration openDuration, PoolClock clock) {
        return new ConsecutiveFailuresStrategy(threshold, openDuration, clock);
    }
}
