package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import dev.loompool.jdbc.LoomConnection;
import dev.loompool.jdbc.PinReason;
import java.util.EnumSet;
import java.util.Set;

/**
 * A handle's {@link LoomConnection} calls: the pins its caller sets and ends itself (an explicit
 * pin, a framework's transaction), and why it holds its connection now. A reclaimed handle has
 * no pins left to change (its next JDBC call says why).
 */
final class PinCalls {

    private PinCalls() {
    }

    static void pin(LogicalConnection h) {
        if (h.touchOwnerQuietly()) {
            Pins.add(h, PinReason.EXPLICIT, Pins.PIN);
        }
    }

    /** Ends the pin of {@link #pin} only: a driver object lent out keeps its pin until close. */
    static void unpin(LogicalConnection h) {
        if (h.touchOwnerQuietly()) {
            PhysicalConnection p = h.physical;
            if (p == null || !p.state().lent()) {
                Pins.remove(h, PinReason.EXPLICIT);
            }
            h.done();
        }
    }

    static void beginFrameworkTransaction(LogicalConnection h) {
        if (h.touchOwnerQuietly()) {
            Pins.add(h, PinReason.FRAMEWORK_TRANSACTION, Pins.FRAMEWORK);
        }
    }

    static void endFrameworkTransaction(LogicalConnection h) {
        if (h.touchOwnerQuietly()) {
            Pins.remove(h, PinReason.FRAMEWORK_TRANSACTION);
            h.done();
        }
    }

    static Set<PinReason> pinReasons(LogicalConnection h) {
        PhysicalConnection p = h.physical;
        return p == null ? EnumSet.noneOf(PinReason.class) : Pins.reasons(h, p, h.pool.releaseMode);
    }
}
