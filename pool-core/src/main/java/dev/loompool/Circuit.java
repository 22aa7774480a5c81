package dev.loompool;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A pool's circuit breaker: the state, the optional strategy, and the single probe slot of the
 * RECOVERING state. The ACTIVE path costs one volatile read.
 *
 * <p>Releases and failed creates are reported to the strategy only while ACTIVE. In INACTIVE or
 * RECOVERING they come from leases or creates that began before the outage and say nothing about
 * the backend now; in RECOVERING only the probe's own verdict, known as soon as its resource is
 * created or validated, moves the state.
 */
final class Circuit {

    private final DefaultPool<?> pool;
    private final CircuitBreakerStrategy strategy;
    private final PoolListener listener;
    private final OutageLog outageLog;
    private final AtomicReference<CircuitBreakerState> state =
            new AtomicReference<>(CircuitBreakerState.ACTIVE);
    private final AtomicBoolean probing = new AtomicBoolean();
    /** Failures since the last success, and the last one: for the log line when the circuit opens. */
    private final AtomicInteger failuresInRow = new AtomicInteger();
    private volatile Throwable lastFailure;

    Circuit(DefaultPool<?> pool, CircuitBreakerStrategy strategy, PoolListener listener, OutageLog outageLog) {
        this.pool = pool;
        this.strategy = strategy;
        this.listener = listener;
        this.outageLog = outageLog;
    }

    CircuitBreakerState state() {
        return state.get();
    }

    /**
     * Lets an acquire through, or throws.
     *
     * @return true when this acquire is the RECOVERING probe, which must call {@link #endProbe()}
     * @throws ServiceUnavailableException when the circuit is open, or half-open with a probe
     *     already under way
     */
    boolean admit() {
        CircuitBreakerState current = state.get();
        if (current == CircuitBreakerState.ACTIVE) {
            return false;
        }
        if (current == CircuitBreakerState.INACTIVE && strategy != null) {
            strategy.reportRejected(pool);
            current = state.get();
        }
        if (current == CircuitBreakerState.RECOVERING && probing.compareAndSet(false, true)) {
            return true;
        }
        if (current == CircuitBreakerState.ACTIVE) {
            return false;
        }
        throw pool.unavailable(current);
    }

    void endProbe() {
        probing.set(false);
    }

    /** A lease ended well. Read before writing: this is the hot path, and a write would bounce the line. */
    void success() {
        if (strategy != null && state.get() == CircuitBreakerState.ACTIVE) {
            if (failuresInRow.get() != 0) {
                failuresInRow.set(0);
            }
            strategy.reportSuccess(pool);
        }
    }

    /** A create failed, or a lease ended badly. */
    void failure(Throwable error) {
        if (strategy != null && state.get() == CircuitBreakerState.ACTIVE) {
            lastFailure = error;
            failuresInRow.incrementAndGet();
            strategy.reportFailure(pool, error);
        }
    }

    /** The probe's resource was created or validated: the backend answers now. */
    void probeSucceeded() {
        if (strategy != null && state.get() == CircuitBreakerState.RECOVERING) {
            failuresInRow.set(0);
            strategy.reportSuccess(pool);
        }
    }

    /** The probe's create failed. */
    void probeFailed(Throwable error) {
        if (strategy != null && state.get() == CircuitBreakerState.RECOVERING) {
            lastFailure = error;
            strategy.reportFailure(pool, error);
        }
    }

    /** Sets the state, telling the listener and the log when it changed. */
    void moveTo(CircuitBreakerState to) {
        CircuitBreakerState from = state.getAndSet(to);
        if (from == to) {
            return;
        }
        if (to == CircuitBreakerState.INACTIVE) {
            Throwable cause = lastFailure;
            outageLog.opened(from, failuresInRow.getAndSet(0), cause);
            lastFailure = null;
        } else if (to == CircuitBreakerState.ACTIVE) {
            outageLog.closed();
        }
        listener.onStateChanged(from, to);
    }
}
