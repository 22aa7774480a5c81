package dev.loompool;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@link PoolClock#SYSTEM}: {@link System#nanoTime()}, and a coarse reading that costs a memory
 * read instead of a clock read (about 25 ns on a virtual machine, a fifth of a pool's whole
 * getConnection–statement–close cycle).
 *
 * <p>The coarse reading is the last value a daemon thread, {@code loompool-clock}, read from the
 * system clock; it reads it every {@link #TICK_NANOS}. So it is never ahead of the real time and
 * lags it by about a tick, more only if that thread is not scheduled. The thread runs while pools
 * read the coarse clock and ends after {@link #IDLE_TICKS} ticks without a reading (an application
 * server can unload the classes then); the next reading after that reads the system clock itself
 * and starts the thread again.
 */
final class SystemClock implements PoolClock {

    static final SystemClock INSTANCE = new SystemClock();

    /** How often the thread reads the system clock: the coarse reading's resolution. */
    static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** Ticks without a coarse reading after which the thread ends (5 s). */
    static final int IDLE_TICKS = 500;

    private static final VarHandle RUNNING;
    private static final VarHandle LAST;

    static {
        try {
            RUNNING = MethodHandles.lookup().findVarHandle(SystemClock.class, "running", boolean.class);
            LAST = MethodHandles.lookup().findVarHandle(SystemClock.class, "last", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The last reading of the system clock by the thread, or by the reading that started it. */
    private volatile long last;
    /** Whether the thread runs (or is starting): {@link #last} is then at most about a tick old. */
    @SuppressWarnings("unused") // through RUNNING as well
    private volatile boolean running;
    /**
     * Whether a coarse reading was made since the thread's last tick. Readers write it only when it
     * is false, so between two ticks it costs the readers one write in all.
     */
    private volatile boolean readSinceTick;

    private SystemClock() {
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public long coarseNanoTime() {
        if (!running) {
            return start();
        }
        if (!readSinceTick) {
            readSinceTick = true;
        }
        return last;
    }

    /** The thread is not running: reads the system clock, publishes it, and starts the thread. */
    private long start() {
        long now = System.nanoTime();
        // before running is set: a reader that sees it running reads this or later; never moved back
        // by a reader that read the clock earlier and stored later
        for (long l = last; now - l > 0 && !LAST.compareAndSet(this, l, now); l = last) {
            Thread.onSpinWait();
        }
        readSinceTick = true;
        if (RUNNING.compareAndSet(this, false, true)) {
            try {
                Thread ticker = new Thread(this::tick, "loompool-clock");
                ticker.setDaemon(true);
                ticker.setContextClassLoader(null); // holds no application's class loader
                ticker.start();
            } catch (RuntimeException | Error e) {
                // No thread now (a process limit, a security policy): the next reading reads the
                // system clock and tries again, rather than read a value that no longer moves.
                running = false;
            }
        }
        return now;
    }

    private void tick() {
        int idle = 0;
        for (;;) {
            LockSupport.parkNanos(TICK_NANOS);
            Thread.interrupted(); // an interrupt would end every later park at once
            last = System.nanoTime();
            if (readSinceTick) {
                readSinceTick = false;
                idle = 0;
            } else if (++idle >= IDLE_TICKS) {
                running = false;
                // A reader that saw it running just now read a value at most a tick old. One that
                // came after reads the system clock and starts a new thread; a reading that slipped
                // in between keeps this one going instead.
                if (!readSinceTick || !RUNNING.compareAndSet(this, false, true)) {
                    return;
                }
                idle = 0;
            }
        }
    }
}
