package dev.loompool.jdbc.internal.lifecycle;

import dev.loompool.jdbc.internal.physical.PhysicalConnection;

/**
 * The tests' door into the reclaimer's package-private parts, as {@code handle.Internals} is into
 * the handle's: the tests of the public API live in {@code dev.loompool.jdbc}, where the
 * reclaimer's scans are not visible.
 */
public final class ReclaimerInternals {

    private ReclaimerInternals() {
    }

    /** Reclaimer scans run so far, over all pools. */
    public static long reclaimerScans() {
        return Reclaimer.scans.get();
    }

    /**
     * The reclaimer's look at the owner of {@code connection}'s last holder, as a scan that read
     * {@code binding} before it looked: the interleaving where the holder lets go and its thread
     * ends between the two.
     */
    public static void lookAtOwner(Object connection, long binding) {
        PhysicalConnection p = (PhysicalConnection) connection;
        ((Reclaimer) p.home().watcher).lookAtOwner(p, binding, p.holder(), p.home().clock.nanoTime());
    }
}
