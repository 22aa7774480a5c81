package dev.loompool.engine;

import dev.loompool.Pool;
import java.time.Duration;

/**
 * The JDBC layer's way into the pool without a {@link dev.loompool.Lease} per acquire (issue 15,
 * P6): {@link #take()} is {@link #acquire()} that returns the pool's own {@link Entry} instead of
 * wrapping it in a fresh lease, and {@link #giveBack} is the lease's {@code close()}. A fresh lease
 * is what keeps a stale holder from releasing somebody else's resource; a caller of this path
 * guarantees that itself (the JDBC layer gives a connection back only after winning the
 * compare-and-set on its binding), so it gives each entry back exactly once per take.
 *
 * <p>Every pool {@link dev.loompool.PoolBuilder#build()} makes is one.
 */
public interface DirectPool<T> extends Pool<T> {

    /** As {@link #acquire()}, with the same waiting, circuit breaker and exceptions. */
    Entry<T> take() throws InterruptedException;

    /** As {@link #acquire(java.time.Duration)}: waits at most {@code timeout}. */
    Entry<T> take(java.time.Duration timeout) throws InterruptedException;

    /** As the lease's {@code close()}: release checks, then back to the pool or to the oldest waiter. Once per take. */
    void giveBack(Entry<T> entry);

    /**
     * Changes the sizes while the pool runs ({@code 0 <= minSize <= maxSize}, {@code maxSize >= 1},
     * else an {@code IllegalArgumentException} naming both). A higher maxSize serves waiters at once;
     * a lower one closes surplus idle resources now and retires lent ones as they come back; a
     * higher minSize is filled in the background.
     */
    void resize(int minSize, int maxSize);

    /** The acquire timeout of the acquires that start from now on. */
    void acquireTimeout(Duration timeout);
}
