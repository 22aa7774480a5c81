package dev.loompool.jdbc.internal.physical;

import dev.loompool.jdbc.internal.driver.SessionAttribute;
import dev.loompool.jdbc.internal.driver.SessionReset;
import java.util.Locale;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * Flight Recorder's record of the undo of a returned connection ({@link JdbcPool}'s release
 * check, {@link ReturnUndo}): only a return that has something to undo (a transaction that may
 * be open, session state, a changed setting) gets one, since the others run nothing. It says
 * what the undo set out to do, how long it took, and whether the connection was kept or retired
 * (and why). Off unless a recording enables it (loompool.jfc); then, off, a return with something
 * to undo pays one check of the event type's state, and one without pays nothing.
 */
@Name("dev.loompool.Reset")
@Label("Session Reset")
@Category({"loompool", "Connection"})
@Description("A returned connection was rolled back, reset or had its settings restored before its reuse; or it "
        + "could not be, and was retired (closed)")
@StackTrace(false)
@Enabled(false)
final class ResetEvent extends Event {

    /** Asked only whether the event is enabled: that reads the event type's state, not this instance's. */
    private static final ResetEvent TYPE = new ResetEvent();

    @Label("Pool")
    String poolName;

    @Label("Ran")
    @Description("What the reset set out to undo, e.g. \"rollback; DISCARD ALL + the driver's session settings\" or "
            + "\"settings: auto_commit, isolation\"")
    String ran;

    @Label("Outcome")
    @Description("OK (the connection goes back to the pool) or RETIRED (it is closed instead)")
    String outcome;

    @Label("Retired Because")
    @Description("Why the connection was retired; empty when OK")
    String retiredBecause;

    /**
     * A started event if a recording wants it, else null (and nothing allocated). Read before the
     * undo, which clears what it undoes: the same conditions as {@link ReturnUndo#undo}.
     */
    static ResetEvent start(PhysicalConnection p, boolean transaction, SessionReset sessionReset) {
        if (!TYPE.isEnabled()) {
            return null;
        }
        ResetEvent event = new ResetEvent();
        event.ran = plan(p, transaction, sessionReset);
        event.begin();
        return event;
    }

    /**
     * What the undo of {@code p} sets out to do, in words (the event's {@code ran}, the "reset"
     * line's): read before the undo, which clears what it undoes.
     */
    static String plan(PhysicalConnection p, boolean transaction, SessionReset sessionReset) {
        StringBuilder ran = new StringBuilder(transaction ? "rollback" : "");
        if (p.sessionDirty || p.current.marked.contains(SessionAttribute.SCHEMA) && sessionReset.ownsSchema()) {
            ran.append(ran.length() == 0 ? "" : "; ").append(sessionReset.describe());
        } else if (!p.current.marked.isEmpty()) {
            ran.append(ran.length() == 0 ? "settings: " : "; settings: ");
            ran.append(p.current.marked.toString().toLowerCase(Locale.ROOT).replaceAll("[\\[\\]]", ""));
        }
        return ran.toString();
    }

    /** Ends {@code event} (null: not recording); {@code retired} is why the connection was retired, or null if kept. */
    static void finish(ResetEvent event, String pool, Retired retired) {
        if (event == null) {
            return;
        }
        event.end();
        if (event.shouldCommit()) {
            event.poolName = pool;
            event.outcome = retired == null ? "OK" : "RETIRED";
            event.retiredBecause = retired == null ? null : retired.getMessage();
            event.commit();
        }
    }
}
