package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.internal.physical.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The calls running on a handle's binding and the handle's lock (DESIGN.md §4 "One state machine,
 * every thread"): what lets several threads use one handle at once. A call that uses the bound
 * connection is a <em>run</em> ({@link #runStarted}, {@link #endRun}); the pins change, and the
 * release is decided, only under the lock ({@link #lockState}), and a release decided while a run
 * is under way is left to the last run to end ({@link #deferIfRunning}). {@link HandleLife} builds
 * the handle's life on it.
 */
abstract class HandleRuns {

    private static final VarHandle CALLS = VarHandles.varHandle(MethodHandles.lookup(), "calls", int.class);
    /** In {@link #calls}: the handle's lock is held. */
    private static final int LOCKED = 1 << 30;
    /** In {@link #calls}: a release was decided while a call ran; the last run to end makes it. */
    private static final int RELEASE_DEFERRED = 1 << 29;
    /** In {@link #calls}: the count of runs. */
    private static final int RUN_COUNT = RELEASE_DEFERRED - 1;

    /**
     * One word for what must not interleave when several threads use the handle at once (a forked
     * subtask beside its parent, a watchdog): the count of calls running on its binding
     * ({@link #runStarted}, {@link #endRun}), {@link #LOCKED} while a thread changes the pins or
     * decides the release ({@link #lockState}), and {@link #RELEASE_DEFERRED}. A run starts and
     * ends by one compare-and-set, and only while the lock is free, so the lock's holder sees the
     * count stand still: a release it decides with no run counted cannot have a call under way,
     * and a call that starts after it sees the binding gone. The lock is held for a few reads and
     * writes, never across a call to the driver or a wait.
     */
    @SuppressWarnings("unused") // accessed through CALLS
    private int calls;

    /** Takes the handle's lock ({@link #calls}): one compare-and-set, then a short spin for a holder a few steps away. */
    final void lockState() {
        if (CALLS.compareAndSet(this, 0, LOCKED)) {
            return; // the common case: nothing runs, nobody holds it
        }
        for (int spins = 0; ; spins++) {
            int w = (int) CALLS.getVolatile(this);
            if ((w & LOCKED) == 0 && CALLS.compareAndSet(this, w, w | LOCKED)) {
                return;
            }
            pause(spins);
        }
    }

    /** {@link #lockState} for a thread in a run of its own: the common case is that run alone. */
    final void lockStateInRun() {
        if (!CALLS.compareAndSet(this, 1, 1 | LOCKED)) {
            lockState();
        }
    }

    /** Lets the lock go: a store, as nothing else changes the word while it is held. */
    final void unlockState() {
        CALLS.setRelease(this, (int) CALLS.get(this) & ~LOCKED);
    }

    /**
     * A call of this handle starts to run on its binding, on the calling thread: first thing,
     * before the check that its binding still holds. A release or close decided under the lock
     * either sees the run (a release is left to the run's end, a close waits for it) or the run
     * sees the binding gone and binds again. Pair with {@link #endRun()}, in a {@code finally}.
     */
    final void runStarted() {
        if (CALLS.compareAndSet(this, 0, 1)) {
            return; // the common case: the only call of the handle
        }
        for (int spins = 0; ; spins++) {
            int w = (int) CALLS.getVolatile(this);
            if ((w & LOCKED) == 0 && CALLS.compareAndSet(this, w, w + 1)) {
                return;
            }
            pause(spins);
        }
    }

    /**
     * The run ends: true for the last one to end if a release was decided meanwhile, which the
     * caller then makes ({@code LogicalConnection#runEnded}), so it is never forgotten.
     */
    final boolean endRun() {
        if (CALLS.compareAndSet(this, 1, 0)) {
            return false; // the common case: the only call of the handle, and no release deferred
        }
        for (int spins = 0; ; spins++) {
            int w = (int) CALLS.getVolatile(this);
            if ((w & LOCKED) == 0) {
                int left = w - 1;
                boolean release = left == RELEASE_DEFERRED;
                if (CALLS.compareAndSet(this, w, release ? 0 : left)) {
                    return release;
                }
            }
            pause(spins);
        }
    }

    /**
     * For the lock's holder, the run it is in ends as the lock goes ({@code trackEndingRun}): one
     * compare-and-set for both. A release deferred to this run finds the handle pinned by what the
     * holder just tracked, so it is dropped: the tracked one's close asks again.
     */
    final void unlockEndingRun() {
        int left = ((int) CALLS.get(this) & ~LOCKED) - 1; // the holder's own run is counted: never below 0
        CALLS.setRelease(this, left == RELEASE_DEFERRED ? 0 : left);
    }

    /** Whether a call of this handle runs now on its binding, on any thread. */
    final boolean running() {
        return ((int) CALLS.getVolatile(this) & RUN_COUNT) != 0;
    }

    /**
     * Under the lock: if a call runs on the binding, the release just decided is left to the last
     * run to end ({@link #endRun} says so to its caller), and this returns true.
     */
    final boolean deferIfRunning() {
        int w = (int) CALLS.get(this);
        if ((w & RUN_COUNT) == 0) {
            return false;
        }
        CALLS.set(this, w | RELEASE_DEFERRED); // published by the unlock's store
        return true;
    }

    /** Waits until no statement of this handle runs on any thread. */
    final void awaitRuns() {
        for (int spins = 0; running(); spins++) {
            pause(spins);
        }
    }

    /** {@link #awaitRuns()} for at most {@code nanos}: whether the runs ended. */
    final boolean awaitRuns(long nanos) {
        long deadline = System.nanoTime() + nanos;
        for (int spins = 0; running(); spins++) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            pause(spins);
        }
        return true;
    }

    /** A short wait for another thread a few steps away: spins, then parks. */
    static void pause(int spins) {
        if (spins < 100) {
            Thread.onSpinWait();
        } else {
            LockSupport.parkNanos(50_000);
        }
    }
}
