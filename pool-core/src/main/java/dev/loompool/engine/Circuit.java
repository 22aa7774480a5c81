package dev.loompool.engine;

import dev.loompool.CircuitBreakerState;
import dev.loompool.CircuitBreakerStrategy;
import dev.loompool.PoolListener;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pool's circuit breaker: the state, the optional strategy, and the single probe slot of the
 * RECOVERING state. The ACTIVE path costs one volatile read.
 *
 * <p>Releases and failed creates are reported to the strategy only while ACTIVE. In INACTIVE or
 * RECOVERING they come from leases or creates that began before the outage and say nothing about
 * the backend now; in RECOVERING only the probe's own verdict, known as soon as its resource is
 * created or validated, moves the state.
 *
 * <p>The strategy is the user's code: whatever it throws is logged and goes no further, so that a
 * faulty strategy can never cost a slot or a lease (it is called in the middle of a release or an
 * acquire).
 */
final class Circuit {

    private static final Logger log = LoggerFactory.getLogger(Circuit.class);

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
    /** INACTIVE set by hand, not by the strategy after failures: callers are told so, not of an outage. */
    private volatile boolean heldByHand;
    /** The threads inside the strategy's reportFailure: a deactivate() from one of them is the strategy's opening. */
    private final Set<Thread> reportingFailure = ConcurrentHashMap.newKeySet();
    /** Whether a strategy failure was logged at ERROR already; the later ones go to DEBUG. */
    private final AtomicBoolean strategyFailureLogged = new AtomicBoolean();

    Circuit(DefaultPool<?> pool, CircuitBreakerStrategy strategy, PoolListener listener, OutageLog outageLog) {
        this.pool = pool;
        this.strategy = strategy;
        this.listener = listener;
        this.outageLog = outageLog;
    }

    CircuitBreakerState state() {
        return state.get();
    }

    boolean heldByHand() {
        return heldByHand;
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
            try {
                strategy.reportRejected(pool);
            } catch (RuntimeException | Error e) {
                strategyFailed("reportRejected", e);
            }
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
            reportSuccess();
        }
    }

    /** A create failed, or a lease ended badly. */
    void failure(Throwable error) {
        if (strategy != null && state.get() == CircuitBreakerState.ACTIVE) {
            lastFailure = error;
            failuresInRow.incrementAndGet();
            reportFailure(error);
        }
    }

    /** The probe's resource was created or validated: the backend answers now. */
    void probeSucceeded() {
        if (strategy != null && state.get() == CircuitBreakerState.RECOVERING) {
            failuresInRow.set(0);
            reportSuccess();
        }
    }

    /**
     * A background create of a start that went on short succeeded: if the failures opened the
     * circuit meanwhile, this is the evidence a probe would bring, so it counts as a probe that
     * succeeded. A circuit held open by hand stays open.
     */
    void answeredInBackground() {
        if (strategy != null && state.get() == CircuitBreakerState.INACTIVE && !heldByHand) {
            moveTo(CircuitBreakerState.RECOVERING);
            probeSucceeded();
        }
    }

    /** The probe's create failed. */
    void probeFailed(Throwable error) {
        if (strategy != null && state.get() == CircuitBreakerState.RECOVERING) {
            lastFailure = error;
            reportFailure(error);
        }
    }

    private void reportSuccess() {
        try {
            strategy.reportSuccess(pool);
        } catch (RuntimeException | Error e) {
            strategyFailed("reportSuccess", e);
        }
    }

    private void reportFailure(Throwable error) {
        Thread current = Thread.currentThread();
        reportingFailure.add(current);
        try {
            strategy.reportFailure(pool, error);
        } catch (RuntimeException | Error e) {
            strategyFailed("reportFailure", e);
        } finally {
            reportingFailure.remove(current);
        }
    }

    private void strategyFailed(String method, Throwable e) {
        if (strategyFailureLogged.compareAndSet(false, true)) {
            log.error("pool '{}': the circuit breaker strategy's {} threw; the pool goes on without its verdict "
                    + "(later failures of the strategy are logged at DEBUG)", pool.name(), method, e);
        } else {
            log.debug("pool '{}': the circuit breaker strategy's {} threw", pool.name(), method, e);
        }
    }

    /** Sets the state, telling the listener and the log when it changed. */
    void moveTo(CircuitBreakerState to) {
        CircuitBreakerState from = state.getAndSet(to);
        if (from == to) {
            return;
        }
        heldByHand = false;
        if (to == CircuitBreakerState.INACTIVE) {
            // Decided by who opens it, not by whether a failure was seen: lastFailure may be an old
            // one (a retired connection) that the strategy did not count.
            heldByHand = !reportingFailure.contains(Thread.currentThread());
            Throwable cause = heldByHand ? null : lastFailure;
            outageLog.opened(from, failuresInRow.getAndSet(0), cause);
            lastFailure = null;
        } else if (to == CircuitBreakerState.ACTIVE) {
            outageLog.closed();
            pool.refillIfBelowMin(); // refills were skipped while the circuit was open
        }
        BreakerTransitionEvent.emit(pool.name(), from, to, heldByHand);
        listener.onStateChanged(from, to);
    }
}
