package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.internal.physical.VarHandles;
import dev.loompool.jdbc.internal.physical.ConnectionState;
import dev.loompool.jdbc.internal.physical.ForeignRelease;
import dev.loompool.jdbc.internal.physical.BindingHolder;
import dev.loompool.jdbc.internal.physical.JdbcPool;
import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import dev.loompool.jdbc.LoomConnection;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.sql.SQLException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The life of a logical connection: open, maybe under watch ({@link HandleWatch}), then closed or
 * reclaimed; the thread that last used it; whether it counts in the pool's open handles.
 *
 * <p>Any number of threads may use the handle, at once too (a subtask beside its parent, a
 * watchdog): what they change together, the pins, the runs and the release decision, changes under
 * the handle's lock ({@link #calls}). Besides them, only the housekeeper touches it: to put it under
 * watch, and with reclaimOnOwnerExit to reclaim it once the thread that last used it has ended. Close and
 * reclaim settle by the connection's binding and a compare-and-set on the state, so that exactly one
 * of them ends the handle and counts it down, and exactly one returns the connection. The common
 * cycle (bind, release, close while unbound) pays no compare-and-set of its own for that.
 *
 * <p>Every call on the handle, or on a statement, result set or metadata obtained from it, notes
 * its thread as the owner ({@link #touchOwner()}): a read, and a write only when the thread
 * changes. The reclaimer first claims the handle from its ended owner by compare-and-set, and a
 * thread that starts using it changes the owner by compare-and-set too, so exactly one of them
 * wins: a reclaim never starts under a call, and a call never starts under a reclaim.
 */
abstract class HandleLife implements BindingHolder {

    private static final VarHandle STATE = VarHandles.varHandle(MethodHandles.lookup(), "state", HandleStage.class);
    private static final VarHandle OWNER = VarHandles.varHandle(MethodHandles.lookup(), "owner", Object.class);
    private static final VarHandle PHYSICAL = VarHandles.varHandle(MethodHandles.lookup(), "physical", PhysicalConnection.class);
    private static final VarHandle LOST = VarHandles.varHandle(MethodHandles.lookup(), "lost", boolean.class);
    private static final VarHandle PUBLISHING = VarHandles.varHandle(MethodHandles.lookup(), "publishing", boolean.class);
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


    final JdbcPool pool;
    /**
     * The thread that last used the handle, or the reclaimer's {@link Claim} on it once that thread
     * ended: set by every use (a bind, the check of the other calls, each call on a statement,
     * result set or metadata), and written, by compare-and-set, only when it changes, which is rare.
     */
    @SuppressWarnings("unused") // accessed through OWNER
    private volatile Object owner;
    /**
     * {@link HandleState#OPEN}, then {@link HandleWatch} (open, under watch), then
     * {@link HandleState#ENDING} while whoever ended it finishes, then {@link HandleState#CLOSED},
     * {@link HandleState#RECLAIMED} or {@link HandleState#SESSION_LOST}; moved by compare-and-set
     * through STATE ({@link #end}), and to the final state by the one that ended it ({@link #finish}).
     */
    @SuppressWarnings("unused")
    private HandleStage state = HandleState.OPEN;
    /** The connection bound now: plain for its own thread; read and cleared through PHYSICAL by close and the reclaimer. */
    PhysicalConnection physical;
    /**
     * The number of the binding that holds {@link #physical} ({@link PhysicalConnection#binding()}):
     * the only one this handle may end. A close or abort on another thread that read the handle
     * just before the reclaimer took the connection must not end the next borrower's binding.
     * Written before {@code physical} is published, so whoever reads that reads this too.
     */
    private long binding;
    /**
     * A thread of this handle is acquiring and publishing a connection ({@link #claimPublish}):
     * two threads that both found the handle unbound must not both bind, or the later
     * {@link #hold} overwrites the earlier connection, which then stays lent to the handle for
     * good (no release or close of the handle reaches it); nor both wait in the pool, where the
     * later would wait for the connection its own handle holds by then.
     */
    @SuppressWarnings("unused") // accessed through PUBLISHING
    private boolean publishing;
    /** It has used a connection, and so counts in the pool's open handles until it ends. */
    private boolean counted;
    /** The reclaimer or the pool's close took its connection from under it: the next call settles that (HandleEnds.reclaimedUnderUse). */
    @SuppressWarnings("unused") // accessed through LOST
    private boolean lost;
    /**
     * What keeps the physical connection, read and written by the rules in {@link Pins} (the pin
     * table in one place): null; the one open statement, while it is all the handle holds (the
     * common cycle allocates nothing more); or the handle's {@link PinSet}, once it holds a reason
     * or a second statement.
     */
    Object pins;
    /** The connection broke inside a transaction: refuse to go on until the caller rolls back. */
    boolean lostTransaction;
    /**
     * A statement asked the driver to close it with its last result set, which ends its pin:
     * result sets look then.
     */
    boolean closeOnCompletion;

    HandleLife(JdbcPool pool) {
        this.pool = pool;
        OWNER.set(this, Thread.currentThread()); // plain: published with the binding, like the other fields
        // Allocate nothing here: once another object is allocated, the JIT no longer knows this one
        // is new, and each later store of a reference into it pays G1's write barriers (P1).
    }

    /** Closes what the handle tracks (its statements) and drops its pins: it is ending. */
    private void dropPins() {
        Pins.clear(this);
        closeOnCompletion = false;
        lostTransaction = false;
    }

    /**
     * A handle counts from its first use: one dropped unused holds nothing to count down. Counted
     * on {@code p}, which it holds now, by a plain write ({@link dev.loompool.jdbc.internal.physical.HandleCount}).
     */
    final boolean countFromFirstUse(PhysicalConnection p) {
        if (counted) {
            return false;
        }
        counted = true;
        p.countHandle();
        return true;
    }

    /**
     * Notes the calling thread as the handle's user, before a call. The hot path is a read and a
     * compare; only a new thread pays a compare-and-set ({@link #takeOver}).
     *
     * @throws SQLException the reclaimer took the handle: the call must not reach its connection
     */
    final void touchOwner() throws SQLException {
        Thread me = Thread.currentThread();
        if (OWNER.getOpaque(this) != me) {
            HandleState ended = takeOver(me);
            if (ended != null) {
                throw HandleEnds.endedError(this, ended);
            }
        }
    }


    /**
     * {@link #touchOwner()} for calls that must not throw (closing, isClosed, the pins of
     * LoomConnection): false if the reclaimer took the handle, whose statements it closed itself.
     */
    final boolean touchOwnerQuietly() {
        Thread me = Thread.currentThread();
        return OWNER.getOpaque(this) == me || takeOver(me) == null;
    }

    /**
     * Makes {@code me} the owner. While the reclaimer holds its claim, waits for its verdict (it
     * decides in a few reads and compare-and-sets, never across a round trip): the ended state if
     * it took the handle, once it has let go of the connection; else it dropped the claim and the
     * thread takes over as usual. Null when {@code me} may go on.
     */
    private HandleState takeOver(Thread me) {
        for (int spins = 0; ; spins++) {
            Object o = OWNER.getVolatile(this);
            if (o instanceof Claim) {
                Object ended = STATE.getAcquire(this);
                if (!open(ended) && ended != HandleState.ENDING && PHYSICAL.getAcquire(this) == null) {
                    return (HandleState) ended;
                }
                if (spins < 100) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.parkNanos(50_000);
                }
            } else if (o == me || OWNER.compareAndSet(this, o, me)) {
                return null;
            }
        }
    }

    /** The reclaimer's hold on a handle whose owner ended: while it is the owner, no call starts. */
    record Claim(Thread ended) {
    }

    /**
     * The reclaimer's first step: claims the handle from {@code endedOwner}, which must still be
     * its owner. Null if another thread used the handle since: it is not reclaimed then.
     */
    final Claim claimForReclaim(Thread endedOwner) {
        Claim claim = new Claim(endedOwner);
        return OWNER.compareAndSet(this, endedOwner, claim) ? claim : null;
    }

    /** The reclaimer does not take the handle after all: threads waiting to use it go on. */
    final void dropClaim(Claim claim) {
        OWNER.compareAndSet(this, claim, claim.ended());
    }

    /**
     * Called by the next holder of the connection this handle let go of, which overwrites the
     * connection's note of it: an open handle that holds no connection now may have been dropped,
     * so it is put under watch. One bound elsewhere is noted by that connection instead.
     */
    final void watchIfLeftOpen() {
        if (PHYSICAL.getOpaque(this) == null && isOpen()) {
            watch();
        }
    }

    /** Puts this handle under watch, once; its watch, or null if it has ended. */
    final HandleWatch watch() {
        Object s = STATE.getAcquire(this);
        if (s instanceof HandleWatch w) {
            return w;
        }
        if (s != HandleState.OPEN) {
            return null;
        }
        HandleWatch w = new HandleWatch(this);
        if (STATE.compareAndSet(this, HandleState.OPEN, w)) {
            pool.watches.add(w);
            return w;
        }
        s = STATE.getAcquire(this);
        return s instanceof HandleWatch other ? other : null;
    }

    /** Holds {@code p}, bound as binding number {@code b}: published for close, abort and the reclaimer. */
    final void hold(PhysicalConnection p, long b) {
        binding = b;
        PHYSICAL.setRelease(this, p);
    }

    /**
     * Whether the calling thread may acquire and bind a connection: false while another thread of
     * this handle does. Held from before the acquire to {@link #hold}, the wait for a connection
     * included; the caller checks the handle is still unbound, and ends it with {@link #published}.
     */
    final boolean claimPublish() {
        return PUBLISHING.compareAndSet(this, false, true);
    }

    /** Ends {@link #claimPublish}: the connection is published, or none was. */
    final void published() {
        PUBLISHING.setRelease(this, false);
    }

    /** Whether another thread of this handle acquires and binds now ({@link #claimPublish}). */
    final boolean publishing() {
        return (boolean) PUBLISHING.getAcquire(this);
    }

    /**
     * After {@link #hold}: whether a close or abort on another thread ended the handle meanwhile
     * (the replay of its settings is a round trip). Then the connection goes back through the
     * release check, which resets what the replay set, unless that close took it already.
     */
    final boolean endedWhileBinding(PhysicalConnection p, long b, boolean firstCount) {
        VarHandle.fullFence(); // the connection is published before the state is read: a close sees one or the other
        if (open(STATE.getVolatile(this))) {
            return false;
        }
        if (p.unbind(b)) {
            if (firstCount && awaitEnded() && counted) {
                // the close did not see this bind's count (it ended the handle before the binding was
                // published): the count is taken back here, on the connection it was made on
                counted = false;
                p.uncountHandle();
            }
            PHYSICAL.setRelease(this, null);
            p.home().giveBack(p);
        }
        return true;
    }

    /** Waits while whoever won the end finishes it (a few steps away): true once it has. */
    private boolean awaitEnded() {
        for (int spins = 0; STATE.getAcquire(this) == HandleState.ENDING; spins++) {
            pause(spins);
        }
        return true;
    }

    /**
     * The number of the binding that holds {@link #physical}, for the handle's own thread while
     * bound, and for an abort, which ends that binding only if it still is the connection's.
     */
    final long heldBinding() {
        return binding;
    }

    /**
     * Lets the connection go. Whoever wins the compare-and-set on the connection's binding gives it
     * back: this call, or a release of this handle on another thread at the same moment
     * ({@link #releaseLocked}), or the pool (its close, the reclaimer), which then says so
     * through {@link #takenFromUnderIt}: a lost compare-and-set here needs no reading.
     */
    final void unbind() {
        lockState();
        PhysicalConnection p = physical;
        boolean mine = false;
        if (p != null) { // else a close or abort on another thread ended the handle meanwhile, and its connection with it
            physical = null;
            mine = p.unbind(binding);
        }
        unlockState();
        // The binding ends under the lock, where runs are counted: a call starting on another
        // thread either counted its run first, and this thread waits for it to end (a metadata
        // call, a cancel on its way), or it sees the binding gone. A broken connection is retired,
        // never lent, and the failing run on this very thread may be the one counted.
        if (mine) {
            if (running() && p.state() != ConnectionState.BROKEN) {
                awaitRuns();
            }
            p.home().giveBack(p);
        }
    }

    /** Ends the binding of {@code p} under the lock, where runs are counted: true if it was still this handle's. */
    private boolean unbindLocked(PhysicalConnection p) {
        lockState();
        try {
            return p.unbind(binding);
        } finally {
            unlockState();
        }
    }

    @Override
    public final void lastConnectionGone() {
        watchIfLeftOpen();
    }

    /** The reclaimer or the pool's close took the connection: the next call ends the handle (HandleEnds.reclaimedUnderUse). */
    @Override
    public final void takenFromUnderIt() {
        LOST.setVolatile(this, true);
    }

    /**
     * Under the lock, with nothing pinning {@code p}: lets it go unless a call runs on it, in which
     * case the last run to end asks again ({@link #endRun}). True if this call ended the binding
     * and is to give {@code p} back; false if a run defers it, or the pool took it meanwhile.
     */
    final boolean releaseLocked(PhysicalConnection p) {
        if (deferIfRunning()) {
            return false;
        }
        physical = null;
        return p.unbind(binding);
    }



    /** Refuses a closed or reclaimed handle; otherwise notes the calling thread as its user. */
    final void ensureOpen() throws SQLException {
        Object s = STATE.getOpaque(this);
        if (!open(s)) {
            throw HandleEnds.endedError(this, (HandleState) s);
        }
        if ((boolean) LOST.getOpaque(this)) {
            throw HandleEnds.reclaimedUnderUse(this);
        }
        touchOwner();
    }

    final boolean isOpen() {
        return open(STATE.getOpaque(this));
    }

    /**
     * Whether a stage read from STATE is open. The hot path reads the stage as an Object and
     * compares identities: a cast to the sealed interface would cost every call a type check.
     */
    static boolean open(Object stage) {
        return stage == HandleState.OPEN || stage instanceof HandleWatch;
    }

    /**
     * Closes the handle. Unbound and not robbed by the reclaimer, it cannot be racing a reclaim
     * (the reclaimer only takes a bound handle), but it may race a first use on another thread: a
     * compare-and-set on the state settles that. Bound, the connection's binding decides.
     */
    public final void close() {
        PhysicalConnection p = (PhysicalConnection) PHYSICAL.getAcquire(this);
        Object s = STATE.getAcquire(this);
        if (!open(s)) {
            return;
        }
        if (p == null && !(boolean) LOST.getOpaque(this)) {
            // Unbound: a compare-and-set ends it, so that exactly one ender counts it down, and then
            // the binding is read again. A first use on another thread publishes its binding, then
            // reads the state: one of the two sees the other, and the handle never stays bound closed.
            Object was = end(HandleState.CLOSED);
            if (!open(was)) {
                return;
            }
            PhysicalConnection raced = (PhysicalConnection) PHYSICAL.getAcquire(this);
            if (raced != null && raced.unbind(binding)) {
                physical = null;
                ForeignRelease.settle(raced); // the binder's thread may be using it: wait for that first
                try {
                    finish(was, HandleState.CLOSED);
                } finally {
                    raced.home().giveBack(raced);
                }
                return;
            }
            finish(was, HandleState.CLOSED); // else the binder saw the close and gives its connection back itself
            return;
        }
        if (p != null && unbindLocked(p)) { // still ours, so no reclaim can take the handle any more
            Object was = end(HandleState.CLOSED); // an abort on another thread may have ended it first: it finishes it then
            physical = null;
            if (running() || p.runner() != Thread.currentThread()) {
                ForeignRelease.settle(p); // its user's statement may still run: wait for it before the state is read
                // A run that takes no lock of the driver's (a cancel over a connection of its own, a
                // metadata call) is waited for too; one still under way after validationTimeout
                // retires the connection, which is then never lent to a borrower it could reach.
                if (running() && !awaitRuns(TimeUnit.SECONDS.toNanos(p.home().validationSeconds()))) {
                    p.markBroken();
                }
            }
            // Another thread's commit(), rollback() or setter still under way on it retires it on
            // the way back (JdbcPool.giveBack): never lent into the next borrower's session.
            try {
                if (open(was)) {
                    finish(was, HandleState.CLOSED); // its statements close before the connection goes back
                }
            } finally {
                p.home().giveBack(p); // the release check rolls back and resets what this handle changed
            }
            return;
        }
        physical = null; // the reclaimer has the connection: whoever moves the state closes the handle
        Object was = end(HandleState.CLOSED);
        if (open(was)) {
            finish(was, HandleState.CLOSED);
        }
    }

    /**
     * The housekeeper's owner-exit reclaim, once it has taken the lease of this handle's
     * connection {@code p}: ends the handle unless its own close got there first, in which case
     * that close counts it down. The caller returns the connection either way.
     *
     * @return whether this call ended the handle
     */
    final boolean reclaimTaken(PhysicalConnection p) {
        Object was = end(HandleState.RECLAIMED);
        if (!open(was)) {
            return false;
        }
        try {
            dropPins(); // its statements close: a late call on one cannot reach the next borrower
        } finally {
            PHYSICAL.compareAndSet(this, p, null);
            countDown(was);
            STATE.setRelease(this, HandleState.RECLAIMED);
        }
        return true;
    }

    /**
     * Ends an open handle (plain or under watch), which is {@link HandleState#ENDING} until the
     * caller's {@link #finish} moves it to {@code target}: what it was (OPEN or its watch), or the
     * ended state it already had, in which case another caller ended it.
     */
    final Object end(HandleState target) {
        Object s;
        do {
            s = STATE.getAcquire(this);
            if (!open(s)) {
                return s;
            }
        } while (!STATE.compareAndSet(this, s, HandleState.ENDING));
        return s;
    }

    /**
     * What ending the handle leaves to do but return its connection, then its final state
     * {@code target}; {@code was}: OPEN or its watch.
     */
    final void finish(Object was, HandleState target) {
        try {
            dropPins();
            countDown(was);
        } finally {
            STATE.setRelease(this, target);
        }
    }

    /** The state it ended in, once whoever ended it has finished ({@link HandleState#ENDING} is a few steps). */
    final HandleState settledEnd() {
        Object s;
        for (int spins = 0; (s = STATE.getAcquire(this)) == HandleState.ENDING; spins++) {
            pause(spins);
        }
        return open(s) ? null : (HandleState) s;
    }

    /** Takes the handle off the open count, if it was on it: through its watch, if any, so exactly once. */
    private void countDown(Object was) {
        if (counted) {
            counted = false;
            if (!(was instanceof HandleWatch w) || w.countDown()) {
                pool.handles.ended();
            }
        }
    }

    public final boolean isClosed() {
        return !touchOwnerQuietly() || !isOpen();
    }

    public final void abort(Executor executor) throws SQLException {
        HandleEnds.abort(this, executor);
    }

    /** The connection bound now, as another thread reads it (an abort): published by {@link #hold}. */
    final PhysicalConnection boundNow() {
        return (PhysicalConnection) PHYSICAL.getAcquire(this);
    }

    /** {@link LoomConnection#isBound()}. */
    public final boolean isBound() {
        return physical != null;
    }

    /** {@link LoomConnection#ownerThread()}; the ended one while the reclaimer holds it, or took it. */
    public final Thread ownerThread() {
        Object o = OWNER.getVolatile(this);
        return o instanceof Claim c ? c.ended() : (Thread) o;
    }

    /** CLOSED or RECLAIMED once ended, else null. */
    final HandleState ended() {
        Object s = STATE.getOpaque(this);
        return open(s) ? null : s == HandleState.ENDING ? settledEnd() : (HandleState) s;
    }

    // ---- runs and the handle's lock ----------------------------------------------------------------

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
