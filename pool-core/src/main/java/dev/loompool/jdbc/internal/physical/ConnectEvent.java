package dev.loompool.jdbc.internal.physical;

import dev.loompool.jdbc.internal.driver.JdbcUrls;
import dev.loompool.jdbc.internal.driver.Secrets;
import java.sql.SQLException;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * Flight Recorder's record of one physical connect ({@link JdbcPool}'s factory callback): the
 * driver's connect and the pool's initialisation of the session, on whichever thread the generic
 * pool runs its factory (a connect thread for a caller, the housekeeper for a refill, the starting
 * thread for the pre-warm). A failure shows its SQLState, class and message with every password
 * masked, as the log does. Off unless a recording enables it (loompool.jfc).
 */
@Name("dev.loompool.Connect")
@Label("Connect")
@Category({"loompool", "Connection"})
@Description("The pool opened a physical connection (the driver's connect and the session's initialisation), or "
        + "failed to")
@StackTrace(false)
@Enabled(false)
final class ConnectEvent extends Event {

    /** Asked only whether the event is enabled: that reads the event type's state, not this instance's. */
    private static final ConnectEvent TYPE = new ConnectEvent();

    @Label("Pool")
    String poolName;

    @Label("Outcome")
    @Description("OK or FAILED")
    String outcome;

    @Label("SQLState")
    @Description("The failure's SQLState, if it is an SQLException that has one")
    String sqlState;

    @Label("Failure")
    @Description("The failure's class")
    String failureClass;

    @Label("Message")
    @Description("The failure's message, passwords masked")
    String message;

    /** A started event if a recording wants it, else null (and nothing allocated). */
    static ConnectEvent start() {
        if (!TYPE.isEnabled()) {
            return null;
        }
        ConnectEvent event = new ConnectEvent();
        event.begin();
        return event;
    }

    static void ok(ConnectEvent event, String pool) {
        if (ended(event, pool, "OK")) {
            event.commit();
        }
    }

    /** {@code failure} is the factory's, masked already; its message is masked again, as the log masks it. */
    static void failed(ConnectEvent event, String pool, Throwable failure, Secrets secrets) {
        if (ended(event, pool, "FAILED")) {
            event.sqlState = failure instanceof SQLException s ? s.getSQLState() : null;
            event.failureClass = failure.getClass().getName();
            event.message = secrets.mask(Secrets.quotesHidden(JdbcUrls.redact(failure.getMessage()))); // as the WARN lines show it
            event.commit();
        }
    }

    /** Ends a started event; true if the recording wants it (past its threshold), with its pool and outcome set. */
    private static boolean ended(ConnectEvent event, String pool, String outcome) {
        if (event == null) {
            return false;
        }
        event.end();
        if (!event.shouldCommit()) {
            return false;
        }
        event.poolName = pool;
        event.outcome = outcome;
        return true;
    }
}
