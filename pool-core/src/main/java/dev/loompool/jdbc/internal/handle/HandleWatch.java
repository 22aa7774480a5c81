package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.internal.physical.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;

/**
 * A weak watch on a handle that may be dropped without close, so that {@code openHandles} is
 * counted down even for a handle that held no connection when it was dropped. A handle gets at
 * most one, set in its state by compare-and-set, when the pool finds it open after it let go of a
 * connection (the connection's next holder, or the housekeeper at an idle connection), or when
 * the housekeeper starts holding a long-bound handle weakly (it is then the connection's holder).
 *
 * <p>Whatever ends the handle first counts it down through {@link #countDown()}, so the count goes
 * down exactly once: its close, its reclaim, or the housekeeper finding it collected. The common
 * cycle never gets a watch, so its close pays no compare-and-set.
 *
 * <p>A new watch holds its handle strongly until the housekeeper has seen it at a later scan. A
 * close racing the watch's creation may miss the watch and count itself down directly; a period
 * later that close is visible, and the housekeeper drops the watch instead of counting the handle
 * down a second time.
 */
final class HandleWatch extends WeakReference<HandleLife> implements HandleStage {

    private static final VarHandle COUNTED = VarHandles.varHandle(MethodHandles.lookup(), "counted", boolean.class);

    @SuppressWarnings("unused") // accessed through COUNTED
    private boolean counted;
    /** The handle, held strongly until the housekeeper confirms the watch; then null. */
    private HandleLife pending;
    /** The housekeeper's scan that took it in: it is confirmed at a later one. Housekeeper only. */
    long takenInAtScan;

    HandleWatch(HandleLife handle) {
        super(handle);
        this.pending = handle;
    }

    /** A handle under watch is open: the watch is its stage until it ends. */
    @Override
    public boolean isOpen() {
        return true;
    }

    /** Takes the handle off the count: true for the one caller that must decrement it. */
    boolean countDown() {
        return COUNTED.compareAndSet(this, false, true);
    }

    boolean countedDown() {
        return (boolean) COUNTED.getVolatile(this);
    }

    boolean pending() {
        return pending != null;
    }

    /** From now on the handle may be collected. */
    void confirm() {
        pending = null;
    }
}
