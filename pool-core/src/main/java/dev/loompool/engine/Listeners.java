package dev.loompool.engine;

import dev.loompool.CircuitBreakerState;
import dev.loompool.DestroyReason;
import dev.loompool.PoolListener;
import java.util.List;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fans events out to the builder's listeners. A listener that throws is logged and skipped: the
 * events fire between the pool's accounting steps, and a metrics bug must not lose a slot. The
 * events are passed as non-capturing method references, which the JVM does not allocate per call.
 */
final class Listeners implements PoolListener {

    private static final Logger log = LoggerFactory.getLogger(Listeners.class);
    static final PoolListener NONE = new PoolListener() { };

    @FunctionalInterface
    private interface LongEvent {
        void fire(PoolListener listener, long value);
    }

    private final PoolListener[] listeners;

    private Listeners(List<PoolListener> listeners) {
        this.listeners = listeners.toArray(new PoolListener[0]);
    }

    static PoolListener of(List<PoolListener> listeners) {
        return listeners.isEmpty() ? NONE : new Listeners(listeners);
    }

    private void each(LongEvent event, long value) {
        for (PoolListener l : listeners) {
            try {
                event.fire(l, value);
            } catch (RuntimeException e) {
                failed(l, e);
            }
        }
    }

    private <A> void each(BiConsumer<PoolListener, A> event, A value) {
        for (PoolListener l : listeners) {
            try {
                event.accept(l, value);
            } catch (RuntimeException e) {
                failed(l, e);
            }
        }
    }

    private static void failed(PoolListener listener, RuntimeException e) {
        log.warn("pool listener {} threw; the event is dropped for it", listener, e);
    }

    @Override
    public void onCreated(long createNanos) {
        each(PoolListener::onCreated, createNanos);
    }

    @Override
    public void onCreationFailed(Throwable error) {
        each(PoolListener::onCreationFailed, error);
    }

    @Override
    public void onAcquired(long waitNanos) {
        each(PoolListener::onAcquired, waitNanos);
    }

    @Override
    public void onReleased(long useNanos) {
        each(PoolListener::onReleased, useNanos);
    }

    @Override
    public void onDestroyed(DestroyReason reason) {
        each(PoolListener::onDestroyed, reason);
    }

    @Override
    public void onTimedOut(long waitNanos) {
        each(PoolListener::onTimedOut, waitNanos);
    }

    @Override
    public void onAcquireFailed(long waitNanos, Throwable error) {
        for (PoolListener l : listeners) {
            try {
                l.onAcquireFailed(waitNanos, error);
            } catch (RuntimeException e) {
                failed(l, e);
            }
        }
    }

    @Override
    public void onRejected(CircuitBreakerState state) {
        each(PoolListener::onRejected, state);
    }

    @Override
    public void onStateChanged(CircuitBreakerState from, CircuitBreakerState to) {
        for (PoolListener l : listeners) {
            try {
                l.onStateChanged(from, to);
            } catch (RuntimeException e) {
                failed(l, e);
            }
        }
    }
}
