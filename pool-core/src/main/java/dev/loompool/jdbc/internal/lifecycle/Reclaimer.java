package dev.loompool.jdbc.internal.lifecycle;

import dev.loompool.jdbc.PinReason;
import dev.loompool.jdbc.internal.handle.Handles;
import dev.loompool.jdbc.internal.handle.ReclaimCalls;
import dev.loompool.jdbc.internal.handle.WatchedHandles;
import dev.loompool.jdbc.internal.physical.ConnectionState;
import dev.loompool.jdbc.internal.physical.BindingHolder;
import dev.loompool.jdbc.internal.physical.JdbcPool;
import dev.loompool.jdbc.internal.physical.OwnerExit;
import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import dev.loompool.jdbc.internal.physical.Watcher;
import java.lang.ref.Reference;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every half second, looks at the connections and the watched handles (DESIGN.md §4, "Coroutine
 * end"):
 * <ul>
 * <li>a lent connection whose handle was dropped without close is rolled back, reset and returned;</li>
 * <li>a lent connection whose handle's last user has ended gets one leak warning; with
 *     reclaimOnOwnerExit it is reclaimed a full period later, if that thread is still its last
 *     user (no call on the handle or on a statement or result set of it came from another thread)
 *     and the same binding still holds it; its open statements and result sets are closed;</li>
 * <li>a connection held longer than the leak-detection threshold gets one warning;</li>
 * <li>an idle connection's note of an open handle that let go of it puts that handle under watch,
 *     and a watched handle the collector found dropped is counted down.</li>
 * </ul>
 */
final class Reclaimer implements Watcher {

    private static final Logger log = LoggerFactory.getLogger(Reclaimer.class);
    private static final long PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(PERIOD_MILLIS);
    /** Scans run, over all pools: lets tests wait for a scan instead of sleeping. */
    static final AtomicLong scans = new AtomicLong();
    /** The pins pinWarningThreshold is about: those that hold until the handle closes (or unpin()). */
    private static final PinReason[] WARNED = {PinReason.SESSION_STATE, PinReason.EXPLICIT};

    private final JdbcPool pool;
    private final ScheduledExecutorService executor;
    /** One scan at a time: the scheduled ones, and a test's. */
    private final ReentrantLock scanning = new ReentrantLock();
    /** The watched handles that have not ended yet, as far as the last scan knew. Scans only. */
    private final WatchedHandles watches = new WatchedHandles();
    private long scanNumber;
    /**
     * Its own notes on each connection of its pool, which it alone writes: at its scans, and at a
     * test's look at an owner (hence concurrent). A connection that no scan looks at any more has
     * gone: its notes go at the end of the scan.
     */
    private final Map<PhysicalConnection, Notes> notes = new ConcurrentHashMap<>();

    Reclaimer(JdbcPool pool) {
        this.pool = pool;
        this.executor = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread t = new Thread(task, "loompool-reclaimer-" + pool.name);
            t.setDaemon(true);
            return t;
        });
        executor.scheduleWithFixedDelay(this::scan, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    }

    @Override
    public void stop() {
        executor.shutdownNow();
    }

    @Override
    public void scan() {
        scanning.lock();
        try {
            scanNumber++;
            long now = pool.clock.nanoTime();
            for (PhysicalConnection p : pool.connections) {
                try {
                    look(p, now);
                } catch (RuntimeException e) {
                    log.error("pool '{}': the reclaimer's scan failed on {}", pool.name, p, pool.factory.secrets().mask(e));
                }
            }
            long scan = scanNumber;
            notes.values().removeIf(n -> n.scan != scan); // after a whole pass only: the connections gone
            watches.poll(pool, scanNumber);
        } catch (RuntimeException e) {
            log.error("pool '{}': the reclaimer's scan failed", pool.name, pool.factory.secrets().mask(e));
        } finally {
            scanning.unlock();
        }
        scans.incrementAndGet();
    }

    private void look(PhysicalConnection p, long now) {
        long binding = p.binding(); // an acquire read: the holder below is the one bound with it, or a newer one
        Notes n = notes(p);
        if (binding == 0) {
            n.ownerExit = null;
            n.bindingSeenAtLastScan = 0;
            lookIdle(p, n);
            return;
        }
        n.seenAtLastScan = null; // an idle period's note: the next one starts afresh
        if (p.holderCollected()) {
            if (p.state() == ConnectionState.EXPOSED) {
                // the application still holds the driver's own connection: taking it back could hand it to
                // another. Its LOBs and arrays are the pool's wrappers, which refuse once the binding ends.
                reportExposed(p);
            } else {
                reclaimUnreachable(p, binding, now);
            }
            return;
        }
        BindingHolder handle = p.holder();
        if (handle == null) {
            return;
        }
        if (n.bindingSeenAtLastScan == binding) {
            Reference<? extends BindingHolder> watch = ReclaimCalls.watch(handle); // held across a whole period: from now on, let it be collected
            if (watch != null) {
                p.holdWeakly(handle, watch);
            }
        } else {
            n.bindingSeenAtLastScan = binding;
        }
        lookAtOwner(p, binding, handle, now);
        if (pool.leakThresholdNanos() > 0 && !p.leakReported() && now - p.handedOutAt() > pool.leakThresholdNanos()) {
            p.noteLeakReported();
            pool.leaksReported.incrementAndGet();
            log.warn("pool '{}': a connection has been held for {} ms by thread {}, longer than "
                    + "leakDetectionThreshold; possible leak", pool.name,
                    Duration.ofNanos(now - p.handedOutAt()).toMillis(), Handles.ownerThread(handle).getName(),
                    p.boundFrom());
        }
        if (pool.pinWarnNanos > 0 && n.pinWarnedBinding != binding) {
            warnIfPinnedLong(p, n, binding, handle, now);
        }
    }

    /**
     * A handle pinned by session state or an explicit pin for longer than pinWarningThreshold keeps
     * its connection from everybody else until it closes (neither ends with a statement or a
     * commit): one WARN per binding (a binding is one handle's), with what an operator needs to find
     * it. The transaction and framework pins do not warn: a long transaction is the application's
     * to bound (a statement or transaction timeout), and leakDetectionThreshold covers a forgotten one.
     */
    private void warnIfPinnedLong(PhysicalConnection p, Notes n, long binding, BindingHolder handle, long now) {
        for (PinReason r : WARNED) {
            if (Handles.pinStartedOnThisBinding(p, r) && now - p.pinSince(r) > pool.pinWarnNanos) {
                n.pinWarnedBinding = binding;
                String statement = Handles.pinStatement(pool, p, r);
                String site = Handles.bindSite(pool, p);
                log.warn("pool '{}': a connection has been pinned by {} for {} ms, longer than pinWarningThreshold "
                        + "({} ms), and serves nobody else until its handle closes: thread {}, bound for {} ms, pinned "
                        + "by {}; started by: {}; bound at: {}", pool.name, r,
                        Duration.ofNanos(now - p.pinSince(r)).toMillis(),
                        Duration.ofNanos(pool.pinWarnNanos).toMillis(), Handles.ownerThread(handle).getName(),
                        Duration.ofNanos(now - p.handedOutAt()).toMillis(), Handles.pinReasons(handle),
                        statement == null ? "unknown" : statement,
                        site == null ? "unknown (set leakDetectionThreshold to see where)" : site);
                return;
            }
        }
    }

    /**
     * An idle connection's last holder, if still open and holding no connection, may have been
     * dropped: seen so at two scans, it is put under watch and the note dropped (by CAS, so as not
     * to erase a newer holder). A closed one's note is dropped at once, so it can be collected.
     */
    private static void lookIdle(PhysicalConnection p, Notes n) {
        Object last = p.lastHolder();
        if (!(last instanceof BindingHolder handle)) {
            n.seenAtLastScan = null;
            return;
        }
        if (ReclaimCalls.isOpen(handle) && n.seenAtLastScan != handle) {
            n.seenAtLastScan = handle;
            return;
        }
        ReclaimCalls.watchIfLeftOpen(handle); // nothing if it ended, or is bound to another connection, which notes it now
        p.forgetHolder(handle);
        n.seenAtLastScan = null;
    }

    /**
     * The handle's last user has ended while the handle still holds the connection. By default a
     * warning, once: the Connection may have been handed to another thread that has yet to use it.
     * With reclaimOnOwnerExit it is reclaimed at a scan a full period after the one that saw it, if
     * the same thread is still its last user (no other thread used it, nor any of its statements
     * or result sets), and the same binding holds it.
     */
    void lookAtOwner(PhysicalConnection p, long binding, BindingHolder handle, long now) {
        Notes n = notes(p);
        Thread owner = Handles.ownerThread(handle);
        if (owner.isAlive()) {
            n.ownerExit = null;
            return;
        }
        if (p.binding() != binding) {
            // It let go after this scan read the binding, and then its thread ended: a close, not a
            // leak. Seeing the thread ended makes everything it did visible, so this read is final.
            n.ownerExit = null;
            return;
        }
        OwnerExit seen = n.ownerExit;
        if (seen == null || seen.binding() != binding || seen.owner() != owner) {
            n.ownerExit = new OwnerExit(binding, owner, now);
            if (!pool.reclaimOnOwnerExit) {
                reportOwnerEnded(p, owner);
            }
            return;
        }
        if (!pool.reclaimOnOwnerExit || now - seen.seenAt() < PERIOD_NANOS) {
            return;
        }
        if (p.state() == ConnectionState.EXPOSED) {
            reportExposed(p);
            return;
        }
        reclaimFromEndedOwner(p, seen, handle, now);
    }

    private void reportOwnerEnded(PhysicalConnection p, Thread owner) {
        pool.leaksReported.incrementAndGet();
        Throwable from = p.boundFrom();
        log.warn("pool '{}': thread {} ended, and the connection handle it used last still holds a connection; "
                + "not reclaimed, since a Connection may be handed to another thread (set reclaimOnOwnerExit to "
                + "reclaim such handles); close it when done{}", pool.name, owner.getName(),
                from == null ? " (set leakDetectionThreshold to see where it was taken)" : "", from);
    }

    private void reportExposed(PhysicalConnection p) {
        if (!p.leakReported()) {
            p.noteLeakReported();
            pool.leaksReported.incrementAndGet();
            log.warn("pool '{}': a connection whose handle was dropped or whose thread ended is not reclaimed: the "
                    + "application still holds the driver's own connection or objects from it (unwrap); close "
                    + "the handle to give it back", pool.name, p.boundFrom());
        }
    }

    /**
     * Claims the handle from its ended owner first, so that no call on it, or on a statement or
     * result set of it, starts meanwhile (a thread that used any of them since wins, and it is not
     * reclaimed); then ends the binding: a close racing this either took it already, or finds it
     * gone and settles by the state. Its open statements and result sets are closed with it: a
     * later call on one is refused as reclaimed, as a call on the handle is.
     */
    private void reclaimFromEndedOwner(PhysicalConnection p, OwnerExit seen, BindingHolder handle, long now) {
        Object claim = ReclaimCalls.claimForReclaim(handle, seen.owner());
        if (claim == null) {
            return; // another thread has just used it
        }
        if (ReclaimCalls.running(handle)) {
            // A statement another thread started before the owner ended still runs on it: that
            // thread is alive and using the handle; taking the connection would roll its work back.
            ReclaimCalls.dropClaim(handle, claim);
            return;
        }
        Throwable from = p.boundFrom(); // before the give-back: the next binder overwrites it
        long boundFor = now - p.handedOutAt();
        boolean reclaimed = false;
        int open = ReclaimCalls.openStatements(handle); // read under the claim: nobody opens or closes one now
        try {
            if (!p.unbind(seen.binding())) {
                return; // given back, or closed, since this scan read the binding
            }
            handle.takenFromUnderIt();
            try {
                reclaimed = ReclaimCalls.reclaimTaken(handle, p); // closes its statements and result sets
            } finally {
                pool.giveBack(p); // rolls back and resets it
            }
        } finally {
            if (!reclaimed) {
                ReclaimCalls.dropClaim(handle, claim);
            }
        }
        if (reclaimed) {
            pool.reclaimed.incrementAndGet();
            ReclaimEvent.emit(pool.name, ReclaimEvent.Reason.OWNER_ENDED, boundFor, seen.owner(), open);
            log.warn("pool '{}': reclaimed a connection whose handle's last user, thread {}, ended without closing "
                    + "it and no other thread used it for {} ms (reclaimOnOwnerExit); its transaction was rolled back"
                    + "{}{}", pool.name, seen.owner().getName(), PERIOD_MILLIS,
                    open == 0 ? "" : " and its " + open + " open statement(s) and result set(s) closed",
                    from == null ? " (set leakDetectionThreshold to see where it was taken)" : "", from);
        }
    }

    private void reclaimUnreachable(PhysicalConnection p, long binding, long now) {
        Throwable from = p.boundFrom();
        long boundFor = now - p.handedOutAt(); // before the release, as the rest: the next binder overwrites them
        Thread runner = p.runner();
        Reference<?> watch = p.holderWatch(); // before the release: the next binder overwrites it
        if (pool.release(p, binding)) { // only if that very binding still holds it
            if (watch != null && ReclaimCalls.countDown(watch)) {
                pool.handles.ended();
            }
            pool.reclaimed.incrementAndGet();
            ReclaimEvent.emit(pool.name, ReclaimEvent.Reason.HANDLE_DROPPED, boundFor, runner, 0);
            log.warn("pool '{}': reclaimed a connection whose handle was dropped without close; "
                    + "its transaction was rolled back{}", pool.name,
                    from == null ? " (set leakDetectionThreshold to see where it was taken)" : "", from);
        }
    }

    /** Its notes on {@code p}, made at its first look, and kept while scans still look at it. */
    private Notes notes(PhysicalConnection p) {
        Notes n = notes.get(p);
        if (n == null) {
            n = new Notes();
            Notes raced = notes.putIfAbsent(p, n);
            if (raced != null) {
                n = raced;
            }
        }
        n.scan = scanNumber;
        return n;
    }

    /** What the reclaimer saw of one connection at its last scans: its own, written by it alone. */
    private static final class Notes {
        /** The scan that looked at it last. */
        long scan;
        /** The last holder it saw at its last scan while idle. */
        Object seenAtLastScan;
        /** The binding it saw at its last scan while lent, else 0. */
        long bindingSeenAtLastScan;
        /** The lent connection's handle's last user was seen ended. */
        OwnerExit ownerExit;
        /** The binding whose long pin it warned about (once per binding), else 0. */
        long pinWarnedBinding;
    }
}
