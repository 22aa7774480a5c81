package dev.loompool.engine;

import dev.loompool.AcquireTimeoutException;
import dev.loompool.CircuitBreakerState;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * A thread parked in the pool's FIFO queue. Its outcome is written once, under the pool's lock,
 * by whoever hands it a resource, a slot or bad news; the parked thread reads it without the lock.
 */
final class Waiter implements Reservation {

    final Thread thread = Thread.currentThread();
    /** The live waiters ahead of it when it queued: the queue position its Flight Recorder event reports. */
    final int ahead;

    /** {@link Signal#PENDING} while waiting, then an {@link Entry} or another {@link Signal}. */
    volatile Reservation outcome = Signal.PENDING;

    Waiter(int ahead) {
        this.ahead = ahead;
    }

    /**
     * Parks until something reaches it or its deadline ({@code start + timeoutNanos}, on the pool's
     * clock) passes: returns an entry or {@link Signal#CREATE}, each holding a slot; throws on a
     * timeout, an interrupt (handing on whatever reached it), a close or an open circuit.
     */
    Reservation await(DefaultPool<?> pool, long start, long timeoutNanos, Duration timeout) throws InterruptedException {
        ConnectionWaitEvent event = ConnectionWaitEvent.start(ahead); // null unless a recording wants it
        Reservation got;
        while ((got = outcome) == Signal.PENDING) {
            long remaining = timeoutNanos - (pool.clock.nanoTime() - start);
            if (remaining <= 0) {
                got = pool.slots.cancel(this);
                if (got != Signal.NONE) {
                    break; // handed over just as time ran out: take it
                }
                ConnectionWaitEvent.finish(event, pool.name(), ConnectionWaitEvent.Outcome.TIMEOUT);
                pool.listener.onTimedOut(pool.clock.nanoTime() - start);
                throw new AcquireTimeoutException(pool.name(), timeout, pool.stats());
            }
            LockSupport.parkNanos(pool, remaining); // returns on hand-off, unpark, or spuriously
            if (Thread.interrupted()) {
                pool.passOn(pool.slots.cancel(this));
                ConnectionWaitEvent.finish(event, pool.name(), ConnectionWaitEvent.Outcome.INTERRUPTED);
                throw new InterruptedException("interrupted while waiting on pool '" + pool.name() + "'");
            }
        }
        ConnectionWaitEvent.finish(event, pool.name(), ConnectionWaitEvent.Outcome.of(got));
        if (got == Signal.CLOSED) {
            throw pool.closedException();
        }
        if (got == Signal.UNAVAILABLE) {
            throw pool.unavailable(CircuitBreakerState.INACTIVE);
        }
        return got;
    }
}
