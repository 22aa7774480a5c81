package dev.loompool.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;

/**
 * A small lock-free shelf of idle entries in front of {@link Slots}' lock, used only while nobody
 * waits: a release puts its entry here and an acquire takes one, each with one compare-and-set, so
 * the common path never takes the lock. Each thread starts its scan at a slot picked from its id
 * (no ThreadLocal): see {@link #put}.
 */
final class Lane<T> {

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Entry[].class);

    /** Slot k lives at index k * SPREAD: each on its own cache line, so threads' CASes never share one. */
    private static final int SPREAD = 16;

    private final Entry<T>[] slots;
    private final int mask;

    /**
     * Enough slots that threads running at once rarely share a home (two that do trade entries
     * across cores), few enough that a scan stays short: 16, or maxSize if smaller. Surplus idle
     * entries beyond them wait in the LIFO ring, where they age and the idle timeout finds them.
     */
    @SuppressWarnings("unchecked")
    Lane(int maxSize) {
        int wanted = Math.min(maxSize, 16);
        int size = Integer.highestOneBit(Math.max(1, wanted) * 2 - 1); // a power of two
        this.slots = (Entry<T>[]) new Entry<?>[size * SPREAD];
        this.mask = size - 1;
    }

    /** Where this thread starts scanning: threads spread over the slots, so their CASes rarely meet. */
    private int home() {
        @SuppressWarnings("deprecation") // Thread.threadId() is 19+; main code runs on 17
        long id = Thread.currentThread().getId();
        return (int) (id * 0x9E3779B97F4A7C15L >>> 40) & mask;
    }

    /**
     * Puts {@code entry} in this thread's home slot, where its next take looks first, so a thread
     * gets back the entry it returned last (LIFO, as the idle ring would give it) and other threads
     * find theirs in their own slots. An older entry it displaces moves up to a free slot.
     *
     * @return null when everything found a place; else the one entry that did not (the lane is
     *     full), which the caller now holds
     */
    @SuppressWarnings("unchecked")
    Entry<T> put(Entry<T> entry) {
        int home = home();
        Entry<T> held = (Entry<T>) SLOT.getAndSet(slots, home * SPREAD, entry);
        for (int i = 1; held != null && i <= mask; i++) {
            int at = ((home + i) & mask) * SPREAD;
            if (SLOT.getVolatile(slots, at) == null && SLOT.compareAndSet(slots, at, null, held)) {
                held = null;
            }
        }
        return held;
    }

    /** The entry in this thread's home slot, else the nearest one above it, where displaced ones went. */
    @SuppressWarnings("unchecked")
    Entry<T> take() {
        int home = home();
        for (int i = 0; i <= mask; i++) {
            int at = ((home + i) & mask) * SPREAD;
            Entry<T> entry = (Entry<T>) SLOT.getVolatile(slots, at);
            if (entry != null && SLOT.compareAndSet(slots, at, entry, null)) {
                return entry;
            }
        }
        return null;
    }

    /** Takes out this very entry, if it is still here. */
    boolean remove(Entry<T> entry) {
        for (int at = 0; at <= mask; at++) {
            if (SLOT.getVolatile(slots, at * SPREAD) == entry && SLOT.compareAndSet(slots, at * SPREAD, entry, null)) {
                return true;
            }
        }
        return false;
    }

    /** How many entries are here now; each is seen once, so it never exceeds what exists. */
    int count() {
        int n = 0;
        for (int at = 0; at <= mask; at++) {
            if (SLOT.getVolatile(slots, at * SPREAD) != null) {
                n++;
            }
        }
        return n;
    }

    @SuppressWarnings("unchecked")
    void copyTo(List<Entry<T>> into) {
        for (int at = 0; at <= mask; at++) {
            Entry<T> entry = (Entry<T>) SLOT.getVolatile(slots, at * SPREAD);
            if (entry != null) {
                into.add(entry);
            }
        }
    }

    /** Takes every entry out. */
    void drainTo(List<Entry<T>> into) {
        Entry<T> entry;
        while ((entry = take()) != null) {
            into.add(entry);
        }
    }
}
