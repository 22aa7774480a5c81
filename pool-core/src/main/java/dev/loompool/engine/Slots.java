package dev.loompool.engine;

import dev.loompool.PoolStats;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A pool's bookkeeping: the counts, the idle ring and the FIFO waiter queue, behind one
 * {@link ReentrantLock} that is held only for a few field updates and never across a callback.
 *
 * <p>A <em>slot</em> is one unit of {@code inUse}: whoever holds one owns either a resource or the
 * right to create one, and hands it on explicitly, to the oldest waiter first. That direct hand-off
 * makes the queue strictly FIFO: a released resource never passes through idle while somebody
 * waits, so neither {@code tryAcquire} nor the releasing thread can take it first.
 *
 * <p>Idle is LIFO: the hottest resource goes out next, so surplus ones age at the cold end where
 * the healthcheck and idle eviction find them, instead of every resource being kept barely alive.
 *
 * <p>While nobody waits, releases and acquires go through the {@link Lane} in front of the lock.
 * The lane and the waiter count are checked Dekker-style: a thread about to wait counts itself in
 * {@code pending} and then looks in the lane; a releaser puts into the lane and then looks at
 * {@code pending}. Each writes before it reads, so one of them sees the other, and no entry sits in
 * the lane while somebody sleeps. {@code inUse} is derived: {@code allocated} minus the idle ones.
 */
final class Slots<T> {

    /** Guarded by the lock; change at run time through {@link #resize}. */
    private int minSize;
    private int maxSize;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Entry<T>> idle;
    /** May hold cancelled waiters, which are skipped. */
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    private final Lane<T> lane;
    /** Resources that exist or are being created: the total. Guarded by the lock. */
    private int allocated;
    /** Live waiters in {@link #waiters}; written under the lock, read without it by the fast paths. */
    private volatile int pending;
    /** Written under the lock; read without it on fast paths. */
    private volatile boolean closed;
    /**
     * Resources chosen to go since maxSize was lowered, not yet destroyed: still counted in
     * {@link #allocated}, so that nothing is created in their place before they are gone. Guarded by the lock.
     */
    private int doomed;
    /**
     * More resources exist than maxSize allows (it was lowered): releases take the locked way, where
     * a returned resource is retired instead of reused. Written under the lock; read by the fast paths.
     */
    private volatile boolean shrinking;

    Slots(int minSize, int maxSize) {
        this.minSize = minSize;
        this.maxSize = maxSize;
        this.idle = new ArrayDeque<>(Math.min(maxSize, 64));
        this.lane = new Lane<>(maxSize);
    }

    /** An idle entry from the lane, without the lock, while nobody waits (so nobody is passed); else null. */
    Entry<T> fastTake() {
        return pending == 0 && !closed ? lane.take() : null;
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * An idle entry or {@link Signal#CREATE}, each holding a slot; else a queued {@link Waiter}, or
     * {@link Signal#NONE} when the caller may not wait; {@link Signal#CLOSED} once closed.
     */
    Reservation reserve(boolean mayWait) {
        lock.lock();
        try {
            if (closed) {
                return Signal.CLOSED;
            }
            if (pending == 0) { // nobody queued, so nobody to barge past
                Entry<T> entry = idle.pollFirst();
                if (entry == null) {
                    entry = lane.take();
                }
                if (entry != null) {
                    return entry;
                }
                if (allocated < maxSize) {
                    allocated++;
                    return Signal.CREATE;
                }
            }
            if (!mayWait) {
                return Signal.NONE;
            }
            pending++; // first count ourselves in, then look in the lane: see the class comment
            Entry<T> late;
            while ((late = lane.take()) != null) {
                Waiter oldest = nextWaiter(); // an entry that slipped into the lane is the oldest's
                if (oldest == null) {
                    pending--;
                    return late; // nobody older: it is ours
                }
                oldest.outcome = late;
                LockSupport.unpark(oldest.thread);
            }
            Waiter waiter = new Waiter(pending - 1); // pending counts it: the others are ahead
            waiters.addLast(waiter);
            return waiter;
        } finally {
            lock.unlock();
        }
    }

    /** Withdraws a waiter; returns what it was handed if that came first, else {@link Signal#NONE}. */
    Reservation cancel(Waiter waiter) {
        lock.lock();
        try {
            Reservation outcome = waiter.outcome;
            if (outcome != Signal.PENDING) {
                return outcome;
            }
            waiter.outcome = Signal.CANCELLED;
            pending--;
            if (waiters.size() > 2 * pending + 64) { // don't let abandoned waiters pile up
                waiters.removeIf(w -> w.outcome != Signal.PENDING);
            }
            return Signal.NONE;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Gives a live resource, whose slot the caller holds, to the oldest waiter or back to idle: at
     * the hot end, or at the cold end it came from when it only passed a healthcheck.
     *
     * @return null; or, when the pool closed meanwhile, the entries the caller must destroy and
     *     {@link #free} the slots of (its own, and any a racing release left in the lane)
     */
    List<Entry<T>> putBack(Entry<T> entry, boolean hot) {
        if (hot && laneOpen()) {
            Entry<T> held = lane.put(entry);
            List<Entry<T>> dead = afterLanePut();
            if (dead != null) {
                if (held != null) {
                    dead.add(held);
                }
                return dead;
            }
            if (held == null) {
                return null;
            }
            entry = held; // the lane is full: its oldest entry goes the locked way instead
        }
        Waiter waiter;
        lock.lock();
        try {
            if (closed) {
                return new ArrayList<>(List.of(entry));
            }
            if (surplus()) {
                return new ArrayList<>(List.of(doom(entry))); // maxSize was lowered: this one goes
            }
            waiter = nextWaiter();
            if (waiter != null) {
                waiter.outcome = entry; // the slot travels with it
            } else {
                if (hot) {
                    idle.addFirst(entry);
                } else {
                    idle.addLast(entry);
                }
                return null;
            }
        } finally {
            lock.unlock();
        }
        LockSupport.unpark(waiter.thread);
        return null;
    }

    /** The release's first look: the lane is for times when nobody waits and the pool is not shrinking. */
    boolean laneOpen() {
        return pending == 0 && !closed && !shrinking;
    }

    /** The test's handle on the step between the two looks. */
    Entry<T> lanePut(Entry<T> entry) {
        return lane.put(entry);
    }

    /**
     * The release's second look, after its entry is in the lane: a waiter that counted itself in
     * between the two looks must not sleep past the entry, nor may an entry outlive a close.
     *
     * @return null; or, when the pool closed, what the lane still held, for the caller to destroy
     */
    List<Entry<T>> afterLanePut() {
        if (closed) {
            List<Entry<T>> dead = new ArrayList<>(2);
            lane.drainTo(dead); // close() drained it before; what is here now came from racing releases
            return dead;
        }
        if (shrinking) { // maxSize was lowered between the two looks: the lane's surplus goes
            List<Entry<T>> surplus = trimLane();
            if (surplus != null) {
                return surplus;
            }
        }
        if (pending != 0) {
            flushLane();
        }
        return null;
    }

    /** Hands what the lane holds to the waiters; what finds no live waiter goes to the idle ring. */
    private void flushLane() {
        List<Waiter> woken = new ArrayList<>(2);
        lock.lock();
        try {
            Entry<T> entry;
            while (pending > 0 && !closed && (entry = lane.take()) != null) {
                Waiter waiter = nextWaiter();
                if (waiter == null) {
                    idle.addFirst(entry);
                    break;
                }
                waiter.outcome = entry;
                woken.add(waiter);
            }
        } finally {
            lock.unlock();
        }
        woken.forEach(w -> LockSupport.unpark(w.thread));
    }

    /**
     * Gives up a slot whose resource is gone: the oldest waiter gets the right to create one, else
     * the slot is freed.
     *
     * @return whether the pool is now open and below minSize, so that a refill is due
     */
    boolean free() {
        return free(false);
    }

    /**
     * As {@link #free()}, for a resource {@link #resize} or a release chose as surplus ({@code surplus}
     * true): such a slot, as every slot above maxSize, is not handed on.
     */
    boolean free(boolean surplus) {
        Waiter waiter = null;
        lock.lock();
        try {
            if (surplus) {
                doomed--;
            }
            if (!closed && allocated <= maxSize) {
                waiter = nextWaiter();
            }
            if (waiter == null) {
                allocated--;
                shrinking = allocated > maxSize;
                return !closed && allocated < minSize;
            }
            waiter.outcome = Signal.CREATE;
        } finally {
            lock.unlock();
        }
        LockSupport.unpark(waiter.thread);
        return false;
    }

    /**
     * Changes the sizes of the running pool. A higher maxSize gives waiters the right to create at
     * once; a lower one takes the surplus idle resources (the coldest first) out, for the caller to
     * destroy and {@link #free(boolean) free} as surplus, and retires lent ones as they come back.
     * A higher minSize is reached by the caller's refill; a lower one lets the idle timeout close more.
     *
     * @return the idle resources to destroy now; empty if none, or if the pool is closed
     */
    List<Entry<T>> resize(int newMin, int newMax) {
        List<Entry<T>> surplus = new ArrayList<>();
        List<Waiter> woken = new ArrayList<>();
        lock.lock();
        try {
            if (closed) {
                return surplus;
            }
            minSize = newMin;
            maxSize = newMax;
            while (allocated < maxSize) {
                Waiter waiter = nextWaiter();
                if (waiter == null) {
                    break;
                }
                allocated++;
                waiter.outcome = Signal.CREATE;
                woken.add(waiter);
            }
            Entry<T> entry;
            while (surplus() && (entry = idle.pollLast()) != null) {
                surplus.add(doom(entry));
            }
            while (surplus() && (entry = lane.take()) != null) {
                surplus.add(doom(entry));
            }
            shrinking = allocated > maxSize;
        } finally {
            lock.unlock();
        }
        woken.forEach(w -> LockSupport.unpark(w.thread));
        return surplus;
    }

    /** Whether more resources exist than maxSize allows beyond those already chosen to go; call with the lock held. */
    private boolean surplus() {
        return allocated - doomed > maxSize;
    }

    /** Chooses {@code entry} to go; call with the lock held. */
    private Entry<T> doom(Entry<T> entry) {
        doomed++;
        entry.surplus = true;
        return entry;
    }

    /** What a release put in the lane while the pool shrinks: the surplus goes, the rest stays idle. */
    private List<Entry<T>> trimLane() {
        lock.lock();
        try {
            List<Entry<T>> surplus = null;
            Entry<T> entry;
            while (surplus() && (entry = lane.take()) != null) {
                if (surplus == null) {
                    surplus = new ArrayList<>(2);
                }
                surplus.add(doom(entry));
            }
            return surplus;
        } finally {
            lock.unlock();
        }
    }

    /** Whether fewer than minSize slots are taken, in an open pool. */
    boolean belowMin() {
        lock.lock();
        try {
            return !closed && allocated < minSize;
        } finally {
            lock.unlock();
        }
    }

    /** Takes a slot for a background refill if the pool is open and below minSize. */
    boolean reserveBelowMin() {
        lock.lock();
        try {
            if (closed || allocated >= minSize) {
                return false;
            }
            allocated++;
            return true;
        } finally {
            lock.unlock();
        }
    }

    List<Entry<T>> idleSnapshot() {
        lock.lock();
        try {
            List<Entry<T>> all = new ArrayList<>(idle);
            lane.copyTo(all);
            return all;
        } finally {
            lock.unlock();
        }
    }

    /** Moves one idle entry to in use, for a healthcheck; false if it was lent out meanwhile. */
    boolean takeIdle(Entry<T> entry) {
        lock.lock();
        try {
            return !closed && (idle.removeFirstOccurrence(entry) || lane.remove(entry));
        } finally {
            lock.unlock();
        }
    }

    /** Adds pre-warmed resources, which hold no slot yet. */
    void addIdle(List<Entry<T>> entries) {
        lock.lock();
        try {
            idle.addAll(entries);
            allocated += entries.size();
        } finally {
            lock.unlock();
        }
    }

    /** Wakes every waiter with {@code signal}. */
    void wakeAll(Signal signal) {
        List<Waiter> woken;
        lock.lock();
        try {
            woken = drainWaiters(signal);
        } finally {
            lock.unlock();
        }
        woken.forEach(w -> LockSupport.unpark(w.thread));
    }

    /**
     * Closes: wakes every waiter with {@link Signal#CLOSED} and takes the idle entries out, each
     * now holding a slot the caller frees once it has destroyed it.
     *
     * @return the idle entries, or null if already closed
     */
    List<Entry<T>> close() {
        List<Waiter> woken;
        List<Entry<T>> idleNow;
        lock.lock();
        try {
            if (closed) {
                return null;
            }
            closed = true;
            woken = drainWaiters(Signal.CLOSED);
            idleNow = new ArrayList<>(idle);
            idle.clear();
            lane.drainTo(idleNow); // releases after this see closed and take their own entries back
        } finally {
            lock.unlock();
        }
        woken.forEach(w -> LockSupport.unpark(w.thread));
        return idleNow;
    }

    PoolStats stats() {
        lock.lock();
        try {
            int idleCount = idle.size() + lane.count();
            return new PoolStats(allocated, idleCount, allocated - idleCount, pending, minSize, maxSize);
        } finally {
            lock.unlock();
        }
    }

    /** The oldest live waiter, taken off the queue; call with the lock held. */
    private Waiter nextWaiter() {
        Waiter waiter;
        while ((waiter = waiters.pollFirst()) != null) {
            if (waiter.outcome == Signal.PENDING) {
                pending--;
                return waiter;
            }
        }
        return null;
    }

    /** Tells every live waiter {@code signal}; call with the lock held and unpark them after. */
    private List<Waiter> drainWaiters(Signal signal) {
        List<Waiter> woken = new ArrayList<>(pending);
        Waiter waiter;
        while ((waiter = nextWaiter()) != null) {
            waiter.outcome = signal;
            woken.add(waiter);
        }
        return woken;
    }
}
