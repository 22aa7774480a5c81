package dev.loompool.jdbc.internal.physical;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Looks up the VarHandles through which the hot path reads and writes a field without a fence: for
 * the physical connections here, and the handles of the room above.
 */
public final class VarHandles {

    private VarHandles() {
    }

    /** The handle on field {@code name} of the class that made {@code lookup}. */
    public static VarHandle varHandle(MethodHandles.Lookup lookup, String name, Class<?> type) {
        try {
            return lookup.findVarHandle(lookup.lookupClass(), name, type);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
