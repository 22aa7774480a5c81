package dev.loompool.engine;

import dev.loompool.DestroyReason;
import dev.loompool.PoolException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates a new pool's minSize resources on the building thread, so that build() returns a warm
 * pool or fails cleanly: if the start gives up, the ones made are destroyed and the pool is closed.
 * When it gives up is the factory's {@link PrewarmPolicy}: at the first failure (the default), when
 * a deadline on the pool's clock has passed, or never (the rest are then made in the background).
 */
final class Prewarm {

    private static final Logger log = LoggerFactory.getLogger(Prewarm.class);
    /** The first wait between attempts; it doubles up to {@link #MAX_BACKOFF_NANOS}. */
    static final long FIRST_BACKOFF_NANOS = Duration.ofMillis(100).toNanos();
    private static final long MAX_BACKOFF_NANOS = Duration.ofSeconds(1).toNanos();
    /** At most one line per this while the start waits: a database that is down for a minute writes a dozen, not 60. */
    private static final long LOG_QUIET_NANOS = Duration.ofSeconds(5).toNanos();

    private Prewarm() {
    }

    static <T> void run(DefaultPool<T> pool, int minSize) {
        PrewarmPolicy policy = pool.factory instanceof PrewarmPolicy p ? p : null;
        Duration timeout = policy == null ? Duration.ZERO : policy.prewarmFailTimeout();
        List<Entry<T>> created = new ArrayList<>(minSize);
        long start = pool.clock.nanoTime();
        long deadline = timeout.isNegative() ? start : start + PoolSettings.saturatedNanos(timeout);
        long backoff = FIRST_BACKOFF_NANOS;
        long nextLine = start;
        int attempts = 0;
        while (created.size() < minSize) {
            attempts++;
            try {
                created.add(Connect.make(pool));
                continue;
            } catch (Exception e) {
                if (timeout.isNegative()) {
                    startShort(pool, policy, created, e);
                    return;
                }
                if (policy != null && policy.abandoned()) {
                    throw gaveUp(pool, minSize, created, e, closedWhileStarting(attempts));
                }
                long now = pool.clock.nanoTime();
                if (now - deadline >= 0) {
                    throw gaveUp(pool, minSize, created, e, timeout.isZero() ? ""
                            : " within " + timeout.toMillis() + " ms (" + attempts + " attempts)");
                }
                if (now - nextLine >= 0) {
                    nextLine = now + LOG_QUIET_NANOS;
                    log.warn("pool '{}': could not create resource {} of minSize={} (attempt {}, {} ms of {} ms): {}; "
                            + "retrying", pool.name(), created.size() + 1, minSize, attempts,
                            Duration.ofNanos(now - start).toMillis(), timeout.toMillis(), policy.shown(e));
                }
                if (!sleep(pool, policy, Math.min(now + backoff, deadline))) {
                    Thread.currentThread().interrupt(); // the caller's to see: the start stops here
                    throw gaveUp(pool, minSize, created, e, ": interrupted while waiting to retry, after "
                            + attempts + " attempts");
                }
                if (policy.abandoned()) {
                    throw gaveUp(pool, minSize, created, e, closedWhileStarting(attempts));
                }
                backoff = Math.min(backoff * 2, MAX_BACKOFF_NANOS);
            }
        }
        pool.slots.addIdle(created);
        pool.startHousekeeping();
    }

    /**
     * Waits until {@code until} on the pool's clock (re-read at every wake, as a manual clock needs),
     * or until the start is abandoned (its owner unparks this thread); false if interrupted.
     */
    private static boolean sleep(DefaultPool<?> pool, PrewarmPolicy policy, long until) {
        for (long left; (left = until - pool.clock.nanoTime()) > 0 && !policy.abandoned(); ) {
            LockSupport.parkNanos(Prewarm.class, left);
            if (Thread.interrupted()) {
                return false;
            }
        }
        return !Thread.interrupted();
    }

    private static String closedWhileStarting(int attempts) {
        return ": closed while starting, after " + attempts + " attempts";
    }

    /** A negative timeout: the pool starts with what it has, and the housekeeper makes the rest, backing off. */
    private static <T> void startShort(DefaultPool<T> pool, PrewarmPolicy policy, List<Entry<T>> created, Exception e) {
        pool.slots.addIdle(created);
        pool.circuit.failure(e); // a failed connect like any other: the breaker counts it
        pool.startHousekeeping();
        policy.startedShort(created.size(), e);
        pool.housekeeper.fillInBackground(FIRST_BACKOFF_NANOS);
    }

    private static <T> PoolException gaveUp(DefaultPool<T> pool, int minSize, List<Entry<T>> created, Exception e,
            String how) {
        created.forEach(entry -> pool.callbacks.destroyQuietly(entry, DestroyReason.POOL_CLOSED));
        pool.slots.close();
        return new PoolException("pool '" + pool.name() + "': could not pre-warm minSize=" + minSize + " resources"
                + how + ", failed after " + created.size(), e);
    }
}
