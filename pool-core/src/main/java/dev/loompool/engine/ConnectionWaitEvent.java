package dev.loompool.engine;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * Flight Recorder's record of an acquire that queued behind others ({@link Waiter#await}): how
 * long, how it ended, and how many waited ahead. Only a queued acquire gets one: the others took
 * an idle resource or a free slot at once (a create is the JDBC pool's {@code dev.loompool.Connect}),
 * and an event per hand-out would cost every cycle an allocation and two clock reads while
 * recording, and flood the recording. Off unless a recording enables it (loompool.jfc); then, off,
 * a wait pays one check of the event type's state and allocates nothing.
 */
@Name("dev.loompool.ConnectionWait")
@Label("Connection Wait")
@Category({"loompool", "Pool"})
@Description("An acquire that queued for a resource (a connection) others held: how long it waited, how the wait "
        + "ended, and how many waiters were ahead of it")
@StackTrace(false)
@Enabled(false)
final class ConnectionWaitEvent extends Event {

    /** How a wait ended: what the engine tells a waiter apart by. */
    enum Outcome {
        /** An idle resource, or one just released, was handed over. */
        ACQUIRED,
        /** A freed slot was handed over: the waiter then creates a resource on it (its own wait, not this one). */
        CREATE,
        TIMEOUT,
        /** The circuit breaker opened while it waited. */
        REJECTED_BY_BREAKER,
        CLOSED,
        INTERRUPTED;

        static Outcome of(Reservation got) {
            return got == Signal.CREATE ? CREATE
                    : got == Signal.CLOSED ? CLOSED
                    : got == Signal.UNAVAILABLE ? REJECTED_BY_BREAKER
                    : ACQUIRED;
        }
    }

    /** Asked only whether the event is enabled: that reads the event type's state, not this instance's. */
    private static final ConnectionWaitEvent TYPE = new ConnectionWaitEvent();

    @Label("Pool")
    String poolName;

    @Label("Outcome")
    @Description("ACQUIRED, CREATE (handed a slot to open a connection on), TIMEOUT, REJECTED_BY_BREAKER, CLOSED "
            + "or INTERRUPTED")
    String outcome;

    @Label("Waiters Ahead")
    @Description("How many live waiters were queued ahead of this one when it began to wait")
    int waitersAhead;

    /** A started event if a recording wants it, else null (and nothing allocated). */
    static ConnectionWaitEvent start(int ahead) {
        if (!TYPE.isEnabled()) {
            return null;
        }
        ConnectionWaitEvent event = new ConnectionWaitEvent();
        event.waitersAhead = ahead;
        event.begin();
        return event;
    }

    static void finish(ConnectionWaitEvent event, String pool, Outcome outcome) {
        if (event == null) {
            return;
        }
        event.end();
        if (event.shouldCommit()) { // past the recording's threshold
            event.poolName = pool;
            event.outcome = outcome.name();
            event.commit();
        }
    }
}
