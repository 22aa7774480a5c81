package dev.loompool;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A pool's circuit breaker: the state, the optional strategy, and the single probe slot of the
 * RECOVERING state. The ACTIVE path costs one volatile read.
 */
final class Circuit {

    private final DefaultPool<?> pool;
    private final CircuitBreakerStrategy strategy;
    private final PoolListener listener;
    private final AtomicReference<CircuitBreakerState> state =
            new AtomicReference<>(CircuitBreakerState.ACTIVE);
    private final AtomicBoolean probing = new AtomicBoolean();

    Circuit(DefaultPool<?> pool, CircuitBreakerStrategy strategy, PoolListener listener) {
        this.pool = pool;
        this.strategy = strategy;
        this.listener = listener;
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

    void success() {
        if (strategy != null) {
            strategy.reportSuccess(pool);
        }
    }

    void failure(Throwable error) {
        if (strategy != null) {
            strategy.reportFailure(pool, error);
        }
    }

    /** Sets the state, telling the listener when it changed. */
    void moveTo(CircuitBreakerState to) {
        CircuitBreakerState from = state.getAndSet(to);
        if (from != to) {
            listener.onStateChanged(from, to);
        }
    }
}
