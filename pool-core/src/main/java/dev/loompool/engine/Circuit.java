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
 *
 * <p>INACTIVE set by hand is a hold: it lasts until ACTIVE or RECOVERING is set by hand, whatever
 * the strategy or the background fill sees meanwhile, and it is one {@link Phase} with the state, so
 * that no reader ever sees the state INACTIVE without its cause.
 */
final class Circuit {

    /** The state and, for INACTIVE, who set it: one value, so both change in one step. */
    private enum Phase {
        ACTIVE(CircuitBreakerState.ACTIVE),
        RECOVERING(CircuitBreakerState.RECOVERING),
        /** Opened by the strategy after failures: its own probes and the background fill may end it. */
        INACTIVE(CircuitBreakerState.INACTIVE),
        /** Set by hand: only a hand ends it. */
        INACTIVE_BY_HAND(CircuitBreakerState.INACTIVE);

        final CircuitBreakerState state;

        Phase(CircuitBreakerState state) {
            this.state = state;
        }
    }

    private static final Logger log = LoggerFactory.getLogger(Circuit.class);

    private final DefaultPool<?> pool;
    private final CircuitBreakerStrategy strategy;
    private final PoolListener listener;
    private final OutageLog outageLog;
    private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.ACTIVE);
    private final AtomicBoolean probing = new AtomicBoolean();
    /** Failures since the last success, and the last one: for the log line when the circuit opens. */
    private final AtomicInteger failuresInRow = new AtomicInteger();
    private volatile Throwable lastFailure;
    /**
     * The threads inside the strategy (reportFailure, reportRejected, a probe's reportSuccess): a
     * state set from one of them is the strategy's, which never ends a hold by hand. Not the hot
     * path's reportSuccess while ACTIVE: the built-in strategy moves nothing there, and the set
     * would cost two writes per release.
     */
    private final Set<Thread> inStrategy = ConcurrentHashMap.newKeySet();
    /** Whether a strategy failure was logged at ERROR already; the later ones go to DEBUG. */
    private final AtomicBoolean strategyFailureLogged = new AtomicBoolean();

    Circuit(DefaultPool<?> pool, CircuitBreakerStrategy strategy, PoolListener listener, OutageLog outageLog) {
        this.pool = pool;
        this.strategy = strategy;
        this.listener = listener;
        this.outageLog = outageLog;
    }

    CircuitBreakerState state() {
        return phase.get().state;
    }

    /** INACTIVE set by hand, not by the strategy after failures: callers are told so, not of an outage. */
    boolean heldByHand() {
        return phase.get() == Phase.INACTIVE_BY_HAND;
    }

    /**
     * Lets an acquire through, or throws.
     *
     * @return true when this acquire is the RECOVERING probe, which must call {@link #endProbe()}
     * @throws ServiceUnavailableException when the circuit is open, or half-open with a probe
     *     already under way
     */
    boolean admit() {
        Phase current = phase.get();
        if (current == Phase.ACTIVE) {
            return false;
        }
        // Held by hand: the strategy is not asked, its back-off probe must not end the hold.
        if (current == Phase.INACTIVE && strategy != null) {
            Thread thread = Thread.currentThread();
            inStrategy.add(thread);
            try {
                strategy.reportRejected(pool);
            } catch (RuntimeException | Error e) {
                strategyFailed("reportRejected", e);
            } finally {
                inStrategy.remove(thread);
            }
            current = phase.get();
        }
        if (current == Phase.RECOVERING && probing.compareAndSet(false, true)) {
            return true;
        }
        if (current == Phase.ACTIVE) {
            return false;
        }
        throw pool.unavailable(current.state);
    }

    void endProbe() {
        probing.set(false);
    }

    /** A lease ended well. Read before writing: this is the hot path, and a write would bounce the line. */
    void success() {
        if (strategy != null && phase.get() == Phase.ACTIVE) {
            if (failuresInRow.get() != 0) {
                failuresInRow.set(0);
            }
            try {
                strategy.reportSuccess(pool);
            } catch (RuntimeException | Error e) {
                strategyFailed("reportSuccess", e);
            }
        }
    }

    /** A create failed, or a lease ended badly. */
    void failure(Throwable error) {
        if (strategy != null && phase.get() == Phase.ACTIVE) {
            lastFailure = error;
            failuresInRow.incrementAndGet();
            reportFailure(error);
        }
    }

    /** The probe's resource was created or validated: the backend answers now. */
    void probeSucceeded() {
        if (strategy != null && phase.get() == Phase.RECOVERING) {
            failuresInRow.set(0);
            reportSuccess();
        }
    }

    /**
     * A background create of a start that went on short succeeded: if the failures opened the
     * circuit meanwhile, this is the evidence a probe would bring, so it counts as a probe that
     * succeeded. A circuit held open by hand stays open: the compare-and-set leaves a hold set at
     * any moment before it alone.
     */
    void answeredInBackground() {
        if (strategy != null && phase.compareAndSet(Phase.INACTIVE, Phase.RECOVERING)) {
            announce(Phase.INACTIVE, Phase.RECOVERING);
            probeSucceeded();
        }
    }

    /** The probe's create failed. */
    void probeFailed(Throwable error) {
        if (strategy != null && phase.get() == Phase.RECOVERING) {
            lastFailure = error;
            reportFailure(error);
        }
    }

    /** The probe's success: not the hot path, so the thread is marked as the strategy's. */
    private void reportSuccess() {
        Thread current = Thread.currentThread();
        inStrategy.add(current);
        try {
            strategy.reportSuccess(pool);
        } catch (RuntimeException | Error e) {
            strategyFailed("reportSuccess", e);
        } finally {
            inStrategy.remove(current);
        }
    }

    private void reportFailure(Throwable error) {
        Thread current = Thread.currentThread();
        inStrategy.add(current);
        try {
            strategy.reportFailure(pool, error);
        } catch (RuntimeException | Error e) {
            strategyFailed("reportFailure", e);
        } finally {
            inStrategy.remove(current);
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

    /**
     * Sets the state, telling the listener and the log when it changed. INACTIVE is by hand unless
     * the strategy sets it (decided by who opens it, not by whether a failure was seen: lastFailure
     * may be an old one, a retired connection, that the strategy did not count); by hand it is a
     * hold even when the circuit was open already, and nothing the strategy sets ends it.
     */
    void moveTo(CircuitBreakerState to) {
        boolean byStrategy = inStrategy.contains(Thread.currentThread());
        Phase target = to == CircuitBreakerState.ACTIVE ? Phase.ACTIVE
                : to == CircuitBreakerState.RECOVERING ? Phase.RECOVERING
                : byStrategy ? Phase.INACTIVE : Phase.INACTIVE_BY_HAND;
        Phase from;
        do {
            from = phase.get();
            if (from == target || from == Phase.INACTIVE_BY_HAND && byStrategy) {
                return;
            }
        } while (!phase.compareAndSet(from, target));
        announce(from, target);
    }

    private void announce(Phase from, Phase to) {
        boolean byHand = to == Phase.INACTIVE_BY_HAND;
        BreakerTransitionEvent.emit(pool.name(), from.state, to.state, byHand);
        if (from.state == to.state) {
            // open after failures, now held by hand: the same state to callers, so no listener call
            failuresInRow.set(0);
            lastFailure = null;
            log.warn("pool '{}': circuit breaker, open after failures, now held open by hand: failing fast until "
                    + "set ACTIVE or RECOVERING by hand", pool.name());
            return;
        }
        if (to.state == CircuitBreakerState.INACTIVE) {
            Throwable cause = byHand ? null : lastFailure;
            outageLog.opened(from.state, failuresInRow.getAndSet(0), cause);
            lastFailure = null;
        } else if (to == Phase.ACTIVE) {
            outageLog.closed();
            pool.refillIfBelowMin(); // refills were skipped while the circuit was open
        }
        listener.onStateChanged(from.state, to.state);
    }
}
