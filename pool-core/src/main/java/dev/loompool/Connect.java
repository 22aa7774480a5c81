package dev.loompool;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * One factory call made for a caller, on the pool's connect thread, so that the caller can stop
 * waiting for it at its deadline whatever the network does (a black-holed host can hold a connect
 * for minutes). The slot stays counted until the call returns; a result nobody waits for any more
 * goes to the pool: a resource to the next waiter or idle, a failure frees the slot.
 */
final class Connect<T> implements Runnable {

    private enum Phase { RUNNING, DONE, ABANDONED }

    private final DefaultPool<T> pool;
    private final Thread caller = Thread.currentThread();
    private final boolean probe;
    private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.RUNNING);
    /** Written before the phase leaves RUNNING, read after: published by the compare-and-set. */
    private Entry<T> entry;
    private Throwable failure;

    Connect(DefaultPool<T> pool, boolean probe) {
        this.pool = pool;
        this.probe = probe;
    }

    @Override
    public void run() {
        try {
            entry = pool.runFactory();
        } catch (Exception | Error e) {
            failure = e;
        }
        if (phase.compareAndSet(Phase.RUNNING, Phase.DONE)) {
            LockSupport.unpark(caller);
        } else {
            pool.adopt(entry, failure, probe);
        }
    }

    /**
     * Starts the call and waits for it until {@code deadline} (on the pool's clock).
     *
     * @return the new entry, or null if the deadline passed first (the call goes on for the pool)
     * @throws Exception what the factory threw
     * @throws InterruptedException if interrupted first (the call goes on for the pool)
     */
    Entry<T> await(PoolClock clock, long deadline) throws Exception {
        try {
            pool.connector().execute(this);
        } catch (RejectedExecutionException closed) {
            run(); // the pool closed meanwhile: the caller finds that out next
        }
        while (phase.get() == Phase.RUNNING) {
            long remaining = deadline - clock.nanoTime();
            if (remaining <= 0 && phase.compareAndSet(Phase.RUNNING, Phase.ABANDONED)) {
                return null;
            }
            LockSupport.parkNanos(this, Math.max(remaining, 1));
            if (Thread.interrupted()) {
                if (phase.compareAndSet(Phase.RUNNING, Phase.ABANDONED)) {
                    throw new InterruptedException("interrupted while a resource was being created for pool '"
                            + pool.name() + "'");
                }
                Thread.currentThread().interrupt(); // done just before: take the result, keep the flag
            }
        }
        if (failure instanceof Error e) {
            throw e;
        }
        if (failure != null) {
            throw (Exception) failure;
        }
        return entry;
    }
}
