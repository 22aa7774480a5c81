package dev.loompool.engine;

import dev.loompool.CircuitBreakerState;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * Flight Recorder's record of a change of the circuit breaker's state ({@link Circuit#moveTo}),
 * beside the WARN and INFO lines of {@link OutageLog}: in a recording it sits on the same time
 * line as the waits and connects around it. Off unless a recording enables it (loompool.jfc).
 */
@Name("dev.loompool.BreakerTransition")
@Label("Circuit Breaker Transition")
@Category({"loompool", "Pool"})
@Description("The pool's circuit breaker changed state: ACTIVE (closed, normal), INACTIVE (open, failing fast), "
        + "RECOVERING (half-open, one probe)")
@StackTrace(false)
@Enabled(false)
final class BreakerTransitionEvent extends Event {

    /** Asked only whether the event is enabled: that reads the event type's state, not this instance's. */
    private static final BreakerTransitionEvent TYPE = new BreakerTransitionEvent();

    @Label("Pool")
    String poolName;

    @Label("From")
    String from;

    @Label("To")
    String to;

    @Label("Set By Hand")
    @Description("INACTIVE set by hand (Pool.deactivate(), the loompool endpoint) rather than by the strategy after "
            + "failures; false for the other states")
    boolean byHand;

    static void emit(String pool, CircuitBreakerState from, CircuitBreakerState to, boolean byHand) {
        if (!TYPE.isEnabled()) {
            return;
        }
        BreakerTransitionEvent event = new BreakerTransitionEvent();
        event.poolName = pool;
        event.from = from.name();
        event.to = to.name();
        event.byHand = byHand;
        event.commit();
    }
}
