package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.internal.physical.BindingHolder;
import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import java.lang.ref.Reference;

/**
 * What the reclaimer, in the room above, may do to a handle it found on a connection (the
 * connection's {@link BindingHolder}) and to a handle's watch: the steps of the reclaim protocol
 * ({@link HandleLife}), each one the handle's own. A door of this room: the reclaimer names no
 * handle type, and no handle method is public for it.
 */
public final class ReclaimCalls {

    private ReclaimCalls() {
    }

    /** Puts {@code handle} under watch, once; its watch, or null if it has ended. */
    public static Reference<? extends BindingHolder> watch(BindingHolder handle) {
        return ((LogicalConnection) handle).watch();
    }

    /** Whether {@code handle} is open (plain, or under watch). */
    public static boolean isOpen(BindingHolder handle) {
        return ((LogicalConnection) handle).isOpen();
    }

    /** An open handle that holds no connection now may have been dropped: it is put under watch. */
    public static void watchIfLeftOpen(BindingHolder handle) {
        ((LogicalConnection) handle).watchIfLeftOpen();
    }

    /**
     * The reclaimer's first step: claims {@code handle} from {@code endedOwner}, which must still be
     * its owner. The claim (opaque), or null if another thread used the handle since.
     */
    public static Object claimForReclaim(BindingHolder handle, Thread endedOwner) {
        return ((LogicalConnection) handle).claimForReclaim(endedOwner);
    }

    /** The reclaimer does not take {@code handle} after all: threads waiting to use it go on. */
    public static void dropClaim(BindingHolder handle, Object claim) {
        ((LogicalConnection) handle).dropClaim((HandleLife.Claim) claim);
    }

    /** Whether a statement of {@code handle} runs now, on any thread. */
    public static boolean running(BindingHolder handle) {
        return ((LogicalConnection) handle).running();
    }

    /** How many statements and metadata result sets of {@code handle} are open. */
    public static int openStatements(BindingHolder handle) {
        return ((LogicalConnection) handle).openStatements();
    }

    /**
     * The reclaimer's second step, once it ended the binding of {@code p}: ends {@code handle} unless
     * that was done, closing its statements; whether this call ended it. The caller returns {@code p}.
     */
    public static boolean reclaimTaken(BindingHolder handle, PhysicalConnection p) {
        return ((LogicalConnection) handle).reclaimTaken(p);
    }

    /** Takes the handle of {@code watch} off the open count: true for the one caller that must decrement it. */
    public static boolean countDown(Reference<?> watch) {
        return ((HandleWatch) watch).countDown();
    }
}
