package dev.loompool.jdbc.internal.physical;

import dev.loompool.jdbc.PinReason;
import dev.loompool.jdbc.internal.sql.SqlMask;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * Flight Recorder's record of one pin: a reason that kept a physical connection across
 * statements (a transaction, session state, a framework's transaction, an explicit pin), from
 * when it started to when it ended or its binding did, as {@link PinTimes} times it. The event
 * begins when the reason starts, where the pool reads its clock anyway, so its duration is the
 * pin's and a recording's threshold keeps only the long ones. The per-statement reasons
 * (STATEMENT, STATEMENT_VALUE) and RELEASE_MODE have none: they are the cycle of every statement
 * (one event per statement), and {@link PinTimes} sums them. A pin that started before the
 * recording did has none either.
 *
 * <p>Off unless a recording enables it (loompool.jfc): then a timed pin's start pays one check of
 * the type's state and its end one read of a null field; the statement is masked only for an
 * event that is committed.
 */
@Name("dev.loompool.Pin")
@Label("Connection Pin")
@Category({"loompool", "Connection"})
@Description("A reason that kept a physical connection bound to its handle across statements, from its start to its end")
@StackTrace(false)
@Enabled(false)
final class PinEvent extends Event {

    /** Asked only whether the event is enabled: that reads the event type's state, not this instance's. */
    private static final PinEvent TYPE = new PinEvent();

    @Label("Pool")
    String poolName;

    @Label("Reason")
    @Description("TRANSACTION, SESSION_STATE, FRAMEWORK_TRANSACTION or EXPLICIT")
    String reason;

    @Label("Statement")
    @Description("The first line of the statement that started the pin, its literals masked as ?; or the call "
            + "that did, e.g. setAutoCommit(false), unwrap(PGConnection), pin()")
    String statement;

    @Label("Bind Site")
    @Description("Where the application bound the connection (the first frame outside loompool, JDBC, Spring and "
            + "Hibernate); only with leakDetectionThreshold set")
    String bindSite;

    /** A timed reason, {@code i} by ordinal, starts on {@code p}: its event begins if a recording wants one. */
    static void begin(PhysicalConnection p, int i) {
        if (!TYPE.isEnabled()) {
            return;
        }
        if (p.pinEvents == null) {
            p.pinEvents = new PinEvent[p.pinSince.length];
        }
        PinEvent e = new PinEvent();
        e.begin();
        p.pinEvents[i] = e;
    }

    /** The timed reason {@code i} ended on {@code p}, or its binding did: its event, if begun, is committed. */
    static void end(PhysicalConnection p, int i) {
        PinEvent[] events = p.pinEvents;
        if (events == null || events[i] == null) {
            return;
        }
        PinEvent e = events[i];
        events[i] = null;
        e.end();
        if (e.shouldCommit()) {
            JdbcPool pool = p.home();
            e.poolName = pool.name;
            e.reason = PinReason.values()[i].name();
            e.statement = SqlMask.firstLine(p.pinStartedBy[i], pool.classifier.dialect());
            e.bindSite = pool.leakThresholdNanos() > 0 ? BindSite.of(p.boundFrom()) : null;
            e.commit();
        }
    }
}
