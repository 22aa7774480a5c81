package dev.loompool.jdbc.internal.lifecycle;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * Flight Recorder's record of a connection the {@link Reclaimer} took back from a handle that was
 * not closed, beside its WARN line: why, how long the handle had held it, and whose it was. The
 * event's thread is the reclaimer's; the owner is a field. Off unless a recording enables it
 * (loompool.jfc).
 */
@Name("dev.loompool.Reclaim")
@Label("Reclaim")
@Category({"loompool", "Connection"})
@Description("A connection was taken back from a handle that was not closed: the handle was dropped and collected, "
        + "or its owner thread ended (reclaimOnOwnerExit)")
@StackTrace(false)
@Enabled(false)
final class ReclaimEvent extends Event {

    /** Why a connection was reclaimed. */
    enum Reason {
        /** The handle was dropped without close, and the collector found it unreachable. */
        HANDLE_DROPPED,
        /** The thread that used the handle last ended, a full period ago, and nobody used it since (reclaimOnOwnerExit). */
        OWNER_ENDED
    }

    /** Asked only whether the event is enabled: that reads the event type's state, not this instance's. */
    private static final ReclaimEvent TYPE = new ReclaimEvent();

    @Label("Pool")
    String poolName;

    @Label("Reason")
    @Description("HANDLE_DROPPED (collected without close) or OWNER_ENDED (its last user's thread ended)")
    String reason;

    @Label("Bound For")
    @Description("How long the handle had held the connection, on the pool's clock")
    @Timespan(Timespan.NANOSECONDS)
    long boundFor;

    @Label("Owner Thread")
    @Description("The ended owner; for a dropped handle, the thread that ran its SQL last")
    String ownerThread;

    @Label("Statements Closed")
    @Description("Open statements and result sets the reclaim closed (owner ended; 0 for a dropped handle)")
    int statementsClosed;

    static void emit(String pool, Reason reason, long boundForNanos, Thread owner, int statementsClosed) {
        if (!TYPE.isEnabled()) {
            return;
        }
        ReclaimEvent event = new ReclaimEvent();
        event.poolName = pool;
        event.reason = reason.name();
        event.boundFor = boundForNanos;
        event.ownerThread = owner == null ? null : owner.getName();
        event.statementsClosed = statementsClosed;
        event.commit();
    }
}
