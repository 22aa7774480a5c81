package dev.loompool.jdbc;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every half second, looks at the connections that are lent out: a handle whose owner thread has
 * ended, or that was dropped without close, has its connection rolled back, reset and returned;
 * a connection held longer than the leak-detection threshold gets one warning.
 */
final class Housekeeping {

    private static final Logger log = LoggerFactory.getLogger(Housekeeping.class);
    static final long PERIOD_MILLIS = 500;
    /** Scans run, over all pools: lets tests wait for a scan instead of sleeping. */
    static final AtomicLong scans = new AtomicLong();

    private final JdbcPool pool;
    private final ScheduledExecutorService executor;

    Housekeeping(JdbcPool pool) {
        this.pool = pool;
        this.executor = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread t = new Thread(task, "loompool-reclaimer-" + pool.name);
            t.setDaemon(true);
            return t;
        });
        executor.scheduleWithFixedDelay(this::scan, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    }

    void stop() {
        executor.shutdownNow();
    }

    void scan() {
        try {
            long now = pool.clock.nanoTime();
            for (PhysicalConnection p : pool.connections) {
                var lease = p.lease(); // an acquire read: the holder below is the one bound with it
                if (lease == null) {
                    p.leaseAtLastScan = null;
                    continue;
                }
                if (p.state().lent() && (p.holderCollected() || !ownerAlive(p))) {
                    reportExposed(p); // the application still holds the driver's objects: taking it back could hand them to another
                    continue;
                }
                if (p.holderCollected()) {
                    reclaimUnreachable(p, lease);
                    continue;
                }
                LogicalConnection handle = p.holder();
                if (handle == null) {
                    continue; // released since we read the lease
                }
                if (!handle.ownerThread().isAlive()) {
                    reclaim(handle, p);
                    continue;
                }
                if (p.leaseAtLastScan == lease) {
                    p.holdWeakly(handle); // held across a whole period: from now on, let it be collected
                } else {
                    p.leaseAtLastScan = lease;
                }
                if (pool.leakThresholdNanos > 0 && !p.leakReported && now - p.handedOutAt > pool.leakThresholdNanos) {
                    p.leakReported = true;
                    pool.leaksReported.incrementAndGet();
                    log.warn("pool '{}': a connection has been held for {} ms by thread {}, longer than "
                            + "leakDetectionThreshold; possible leak", pool.name,
                            Duration.ofNanos(now - p.handedOutAt).toMillis(), handle.ownerThread().getName(),
                            p.boundFrom);
                }
            }
        } catch (RuntimeException e) {
            log.error("pool '{}': housekeeping failed", pool.name, pool.factory.secrets().mask(e));
        }
        scans.incrementAndGet();
    }

    private static boolean ownerAlive(PhysicalConnection p) {
        LogicalConnection handle = p.holder();
        return handle == null || handle.ownerThread().isAlive();
    }

    private void reportExposed(PhysicalConnection p) {
        if (!p.leakReported) {
            p.leakReported = true;
            pool.leaksReported.incrementAndGet();
            log.warn("pool '{}': a connection whose handle was dropped or whose thread ended is not reclaimed: the "
                    + "application still holds the driver's own connection or objects from it (unwrap, LOBs); close "
                    + "the handle to give it back", pool.name, p.boundFrom);
        }
    }

    private void reclaim(LogicalConnection handle, PhysicalConnection p) {
        Throwable from = p.boundFrom;
        handle.reclaim();
        pool.reclaimed.incrementAndGet();
        log.warn("pool '{}': reclaimed a connection whose owner thread {} ended without closing it; "
                + "its transaction was rolled back{}", pool.name, handle.ownerThread().getName(),
                from == null ? " (set leakDetectionThreshold to see where it was taken)" : "", from);
    }

    private void reclaimUnreachable(PhysicalConnection p, dev.loompool.Lease<PhysicalConnection> lease) {
        Throwable from = p.boundFrom;
        if (pool.release(p, lease)) { // only if that very lease still holds it
            pool.openHandles.decrement();
            pool.reclaimed.incrementAndGet();
            log.warn("pool '{}': reclaimed a connection whose handle was dropped without close; "
                    + "its transaction was rolled back{}", pool.name,
                    from == null ? " (set leakDetectionThreshold to see where it was taken)" : "", from);
        }
    }
}
