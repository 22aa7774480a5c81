package dev.loompool.engine;

import dev.loompool.CircuitBreakerState;
import dev.loompool.DestroyReason;
import dev.loompool.PoolStats;
import dev.loompool.ResourceCheck;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pool's background work on one daemon platform thread: the periodic healthcheck of idle
 * resources, the check of all idle ones at once after a failure, and refilling to minSize. Refills
 * run here and never on the thread that destroyed a resource, so a release never pays for a connect.
 */
final class Housekeeper<T> {

    private static final Logger log = LoggerFactory.getLogger(Housekeeper.class);
    private static final long STOP_PATIENCE_SECONDS = 10;
    /** The longest wait between the attempts of a start that went on short (HikariCP's is 5 s too). */
    private static final long MAX_FILL_BACKOFF_NANOS = Duration.ofSeconds(5).toNanos();

    /**
     * The pool's lifecycle lines at DEBUG (the stats of each housekeeping run), under the name the
     * JDBC pool's lines use too (physical/LifecycleLog): {@code dev.loompool.pool.<pool name>}, so
     * that an operator turns them on for every pool or for one.
     */
    private final Logger lines;
    private final DefaultPool<T> pool;
    private final ResourceCheck<T> healthcheck;
    private final Duration interval;
    private final ScheduledThreadPoolExecutor executor;
    private final AtomicBoolean refillQueued = new AtomicBoolean();
    private final AtomicBoolean checkQueued = new AtomicBoolean();
    /** The executor's one thread, once it exists. */
    private volatile Thread worker;

    Housekeeper(DefaultPool<T> pool, ResourceCheck<T> healthcheck, Duration interval) {
        this.pool = pool;
        this.lines = LoggerFactory.getLogger("dev.loompool.pool." + pool.name());
        this.healthcheck = healthcheck;
        this.interval = interval;
        this.executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "loompool-housekeeper-" + pool.name());
            thread.setDaemon(true);
            worker = thread;
            return thread;
        });
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor.setRemoveOnCancelPolicy(true);
    }

    void start() {
        if (healthcheck != null && !interval.isZero()) {
            long nanos = interval.toNanos();
            executor.scheduleWithFixedDelay(this::tick, nanos, nanos, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Cancels the periodic check and waits a while for work under way (a refill's connect, say) to
     * finish, so that once close returns no resource outlives the pool but those still lent out.
     * The pool is closed by then, so that work puts nothing back: it destroys what it made.
     */
    void stop() {
        executor.shutdown();
        if (Thread.currentThread() == worker) {
            return; // closed from our own thread (a listener, say): waiting would wait for ourselves
        }
        try {
            if (!executor.awaitTermination(STOP_PATIENCE_SECONDS, TimeUnit.SECONDS)) {
                log.warn("pool '{}': housekeeping still busy {} s after close; leaving it to finish",
                        pool.name(), STOP_PATIENCE_SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Asks for a refill; several requests before it runs make one refill. */
    void refillSoon() {
        if (refillQueued.compareAndSet(false, true)) {
            try {
                executor.execute(() -> {
                    refillQueued.set(false);
                    refill();
                });
            } catch (RejectedExecutionException closed) {
                refillQueued.set(false);
            }
        }
    }

    /**
     * After a start that went on short of minSize (a negative prewarm timeout): creates the rest,
     * {@code delayNanos} from now and then backing off, whatever the breaker says, until the pool
     * has reached minSize once or is closed; the periodic refill takes over from there. Its failures
     * count towards the breaker as any failed create does, and its first success closes a breaker
     * they opened: without it a pool nobody asks (health DOWN, so no traffic) would never recover.
     */
    void fillInBackground(long delayNanos) {
        try {
            executor.schedule(() -> fillStep(delayNanos), delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closed) {
            // the pool closed: nothing to fill
        }
    }

    private void fillStep(long delayNanos) {
        while (pool.slots.reserveBelowMin()) {
            Entry<T> entry;
            try {
                entry = Connect.make(pool);
            } catch (Exception | Error e) { // an Error too: the reserved slot must be freed
                if (e instanceof Error) {
                    log.error("pool '{}': background connect after the start failed", pool.name(), e);
                } else {
                    pool.outageLog.createFailed(e, true);
                }
                pool.fail(e, false);
                fillInBackground(Math.min(delayNanos * 2, MAX_FILL_BACKOFF_NANOS));
                return;
            }
            pool.circuit.answeredInBackground();
            pool.putBack(entry, true);
        }
    }

    /**
     * After a failure: takes every idle resource out of circulation at once, so that no caller is
     * handed one that may be dead, and checks them side by side on the pool's connect threads, so
     * that N dead ones cost one timeout, not N. Several requests before it runs make one check.
     */
    void checkIdleSoon() {
        if (healthcheck != null && checkQueued.compareAndSet(false, true)) {
            try {
                executor.execute(() -> {
                    checkQueued.set(false);
                    checkAllIdleNow();
                });
            } catch (RejectedExecutionException closed) {
                checkQueued.set(false);
            }
        }
    }

    private void checkAllIdleNow() {
        try {
            for (Entry<T> entry : pool.slots.idleSnapshot()) {
                if (pool.slots.takeIdle(entry)) {
                    try {
                        pool.connector.execute(() -> check(entry, true));
                    } catch (RejectedExecutionException closed) {
                        check(entry, true);
                    }
                }
            }
        } catch (RuntimeException | Error e) {
            log.error("pool '{}': checking the idle resources failed", pool.name(), e);
        }
    }

    private void tick() {
        try {
            // Like HikariCP's "Before cleanup stats": an operator sees the pool breathe at DEBUG.
            PoolStats before = lines.isDebugEnabled() ? pool.stats() : null;
            checkIdle();
            refill();
            if (before != null) {
                lines.debug("pool '{}': housekeeping ran; before ({}), after ({})", pool.name(), before, pool.stats());
            }
        } catch (RuntimeException | Error e) {
            // An exception would cancel the periodic task for good; log it and keep checking.
            log.error("pool '{}': housekeeping failed", pool.name(), e);
        }
    }

    /** Checks each idle resource in turn, taking only that one out of circulation at a time. */
    private void checkIdle() {
        for (Entry<T> entry : pool.slots.idleSnapshot()) {
            if (pool.slots.takeIdle(entry)) { // else lent out since the snapshot: in-use resources are never checked
                check(entry, false);
            }
        }
    }

    /** Checks one resource taken out of idle; puts it back or destroys it (and then refills, if asked). */
    private void check(Entry<T> entry, boolean refill) {
        if (pool.callbacks.rejection(healthcheck, entry.resource, "healthcheck") == null) {
            pool.putBack(entry, false);
        } else {
            pool.callbacks.destroyQuietly(entry, DestroyReason.HEALTHCHECK_FAILED);
            pool.freeSlot(refill); // the periodic tick refills itself, right after
        }
    }

    /**
     * Creates resources up to minSize. Stops at the first failure, and while the circuit is not
     * ACTIVE, so that a backend that is down is not hammered from here.
     */
    private void refill() {
        while (pool.state() == CircuitBreakerState.ACTIVE && pool.slots.reserveBelowMin()) {
            Entry<T> entry;
            try {
                entry = Connect.make(pool);
            } catch (Exception | Error e) { // an Error too: the reserved slot must be freed, or it is lost for good
                if (e instanceof Error) {
                    log.error("pool '{}': background refill failed", pool.name(), e);
                } else {
                    pool.outageLog.createFailed(e, true);
                }
                pool.fail(e, false);
                return;
            }
            pool.putBack(entry, true);
        }
    }
}
