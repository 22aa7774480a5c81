package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.HandleInfo;
import dev.loompool.jdbc.PinReason;
import dev.loompool.jdbc.internal.physical.BindSite;
import dev.loompool.jdbc.internal.physical.JdbcPool;
import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import dev.loompool.jdbc.internal.physical.PinTimes;
import dev.loompool.jdbc.internal.sql.SqlMask;
import java.time.Duration;
import java.util.Set;

/**
 * Why a handle is pinned, for whoever asks from outside its thread (the endpoint's bound handles,
 * the reclaimer's pin warning): the reasons, the oldest one, the masked statement that started it
 * and where the connection was bound. It reads the holder's plain fields without a lock, as the
 * pin counts do: a view a moment late, never a change. Masking and the stack walk happen here,
 * when asked, never on the statement's path.
 */
final class HandleReport {

    private HandleReport() {
    }

    /** The facts of {@code h}, which holds {@code p}, at {@code now} (the pool's clock). */
    static HandleInfo of(LogicalConnection h, PhysicalConnection p, long now) {
        Set<PinReason> reasons = h.pinReasons();
        PinReason longest = null;
        long since = 0;
        for (PinReason r : reasons) { // the reasons that outlive a statement: timed from when each started
            if (startedOnThisBinding(p, r) && (longest == null || p.pinSince(r) - since < 0)) {
                longest = r;
                since = p.pinSince(r);
            }
        }
        if (longest == null && !reasons.isEmpty()) { // per-statement only (or a transaction the server reports): no start of its own
            longest = reasons.iterator().next();
            since = p.handedOutAt();
        }
        return new HandleInfo(h.ownerThread().getName(), Duration.ofNanos(Math.max(0, now - p.handedOutAt())), reasons,
                longest, longest == null ? Duration.ZERO : Duration.ofNanos(Math.max(0, now - since)),
                longest == null ? null : statement(h.pool, p, longest), bindSite(h.pool, p));
    }

    /**
     * Whether timed reason {@code r} holds {@code p} since a start on this binding: its bit is set and
     * its start is not older than the bind (read from another thread, a stale start is not trusted).
     */
    static boolean startedOnThisBinding(PhysicalConnection p, PinReason r) {
        return (p.pinsTimed() & PinTimes.bit(r)) != 0 && p.pinSince(r) - p.handedOutAt() >= 0;
    }

    /** The masked first line of what started {@code r} on {@code p}, or null if that is not known. */
    static String statement(JdbcPool pool, PhysicalConnection p, PinReason r) {
        boolean known = PinTimes.lazy(r) ? (p.pinsSeen() & PinTimes.bit(r)) != 0 : startedOnThisBinding(p, r);
        return known ? SqlMask.firstLine(p.pinStartedBy(r), pool.classifier.dialect()) : null;
    }

    /** Where {@code p} was bound, when leak detection captured it. */
    static String bindSite(JdbcPool pool, PhysicalConnection p) {
        return pool.leakThresholdNanos() > 0 ? BindSite.of(p.boundFrom()) : null;
    }
}
