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

    /** The system's monotonic clock. */
    PoolClock SYSTEM = System::nanoTime;

    /** Nanoseconds from an arbitrary origin; only differences mean anything. */
    long nanoTime();
}
