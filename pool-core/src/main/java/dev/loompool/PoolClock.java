package dev.loompool;

/**
 * The pool's source of time: a monotonic nanosecond counter, like {@link System#nanoTime()}.
 * Injected through {@link PoolBuilder#clock(PoolClock)} so that tests move time forward instead
 * of sleeping through acquire timeouts and circuit-breaker open durations.
 *
 * <p>A waiting thread re-reads the clock every time it wakes, so a test that advances a manual
 * clock unparks the waiter ({@link java.util.concurrent.locks.LockSupport#unpark(Thread)}) to make
 * it notice.
 */
@FunctionalInterface
public interface PoolClock {

    /**
     * The system's monotonic clock; its {@linkplain #coarseNanoTime() coarse reading} lags it by
     * about 10 ms and costs a memory read.
     */
    PoolClock SYSTEM = SystemClock.INSTANCE;

    /** Nanoseconds from an arbitrary origin; only differences mean anything. */
    long nanoTime();

    /**
     * A cheaper reading on the same scale that may lag {@link #nanoTime()} a little, never lead it:
     * the pool uses it where an older time errs on the safe side (when a returned connection came
     * back: a connection that looks idle for longer is validated sooner) or where a lag of a few
     * milliseconds changes nothing (lifetimes, how long a handle has held its connection). The
     * default is {@link #nanoTime()} itself.
     */
    default long coarseNanoTime() {
        return nanoTime();
    }
}
