package dev.loompool.engine;

import dev.loompool.AcquireTimeoutException;
import dev.loompool.DestroyReason;
import dev.loompool.PoolClock;
import dev.loompool.PoolException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
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

    /** A pool's connect threads: none while no create runs, and at most maxSize, since each create holds a slot. */
    static ExecutorService executor(String poolName) {
        return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), task -> {
            Thread thread = new Thread(task, "loompool-connect-" + poolName);
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Creates a resource on the caller's slot, waiting for it until {@code start + budget}. A
     * failure frees the slot and is reported (as the probe's verdict, if this is the probe).
     * {@code rejectedCheckNanos}: how long the check of an idle resource the caller was given first
     * took before it rejected it, -1 if none; a timeout says so ({@link CreateTimedOut}).
     */
    Entry<T> forCaller(long start, long budget, long rejectedCheckNanos) throws InterruptedException {
        long began = pool.clock.nanoTime();
        Entry<T> made;
        try {
            made = await(pool.clock, start + budget);
        } catch (InterruptedException e) {
            throw e; // the create goes on, for the pool
        } catch (Exception | Error e) {
            pool.outageLog.createFailed(e, false);
            failed(e);
            pool.listener.onAcquireFailed(pool.clock.nanoTime() - start, e);
            if (e instanceof Error) {
                throw (Error) e;
            }
            throw new PoolException("pool '" + pool.name() + "': could not create a resource (" + pool.stats() + ")", e);
        }
        if (made == null) {
            long now = pool.clock.nanoTime();
            pool.listener.onTimedOut(now - start);
            AcquireTimeoutException timeout = new AcquireTimeoutException(pool.name(), Duration.ofNanos(budget),
                    pool.stats());
            timeout.initCause(new CreateTimedOut(pool.name(), rejectedCheckNanos, now - began));
            throw timeout;
        }
        return made;
    }

    /** The result of a create whose caller stopped waiting: the pool takes it, as it would a release. */
    private void adopt() {
        if (failure != null) {
            pool.outageLog.createFailed(failure, true);
            failed(failure);
            return;
        }
        if (probe) {
            pool.circuit.probeSucceeded(); // late, but evidence all the same that the backend answers
        }
        if (pool.isClosed()) {
            pool.callbacks.destroyQuietly(entry, DestroyReason.POOL_CLOSED);
            pool.freeSlot(false);
        } else {
            pool.putBack(entry, true);
        }
    }

    private void failed(Throwable error) {
        if (probe) {
            try {
                pool.circuit.probeFailed(error);
            } finally {
                pool.freeSlot(true);
            }
        } else {
            pool.fail(error, true);
        }
    }

    /** Runs the factory on a slot the caller holds; on failure the caller still holds it. */
    static <T> Entry<T> make(DefaultPool<T> pool) throws Exception {
        long begin = pool.clock.nanoTime();
        T resource;
        try {
            resource = pool.factory.create();
            if (resource == null) {
                throw new NullPointerException("the factory of pool '" + pool.name() + "' returned null");
            }
        } catch (Exception | Error e) {
            pool.listener.onCreationFailed(e);
            throw e;
        }
        pool.listener.onCreated(pool.clock.nanoTime() - begin);
        return new Entry<>(resource);
    }

    @Override
    public void run() {
        try {
            entry = make(pool);
        } catch (Exception | Error e) {
            failure = e;
        }
        if (phase.compareAndSet(Phase.RUNNING, Phase.DONE)) {
            LockSupport.unpark(caller);
        } else {
            adopt();
        }
    }

    /**
     * Starts the call and waits for it until {@code deadline} (on the pool's clock).
     *
     * @return the new entry, or null if the deadline passed first (the call goes on for the pool)
     * @throws Exception what the factory threw
     * @throws InterruptedException if interrupted first (the call goes on for the pool)
     */
    private Entry<T> await(PoolClock clock, long deadline) throws Exception {
        try {
            pool.connector.execute(this);
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
