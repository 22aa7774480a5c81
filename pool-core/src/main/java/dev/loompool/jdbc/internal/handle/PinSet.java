package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.PinReason;
import java.util.ArrayList;
import java.util.EnumSet;

/**
 * The set of pins of a handle (DESIGN.md §4): the reasons it holds, and the open statements and
 * metadata result sets it tracks, each of which pins as {@link PinReason#STATEMENT}. STATEMENT (an
 * open statement, or a run under way) and RELEASE_MODE are derived by {@link Pins}, never stored.
 *
 * <p>A handle makes one only when it needs it: while it holds nothing but its one open statement
 * (the common cycle: getConnection, a statement, close), the handle keeps that statement itself
 * and allocates nothing ({@link Pins}). Not thread-safe itself: {@link Pins} changes it under the
 * handle's lock, since several threads may use one handle at once; a close takes the tracked ones
 * out under the lock and closes them after.
 */
final class PinSet {

    /** The reasons held, a bit each by ordinal. */
    private int reasons;
    /** The open statements and metadata result sets: null, the one, or an {@code ArrayList} of them. */
    private Object tracked;

    /** A set holding {@code first}, the handle's one open statement until now; null for an empty set. */
    PinSet(Tracked first) {
        this.tracked = first;
    }

    boolean has(PinReason r) {
        return (reasons & bit(r)) != 0;
    }

    void add(PinReason r) {
        reasons |= bit(r);
    }

    void remove(PinReason r) {
        reasons &= ~bit(r);
    }

    boolean anyReason() {
        return reasons != 0;
    }

    void clearReasons() {
        reasons = 0;
    }

    /** The reasons held, as a new set of the caller's. */
    EnumSet<PinReason> reasons() {
        EnumSet<PinReason> all = EnumSet.noneOf(PinReason.class);
        for (int left = reasons; left != 0; left &= left - 1) {
            all.add(REASONS[Integer.numberOfTrailingZeros(left)]);
        }
        return all;
    }

    /** Whether it keeps the connection: a reason, or something open. */
    boolean holds() {
        return reasons != 0 || tracked != null;
    }

    int trackedCount() {
        Object t = tracked;
        return t == null ? 0 : t instanceof Tracked ? 1 : ((ArrayList<?>) t).size();
    }

    @SuppressWarnings("unchecked")
    void track(Tracked t) {
        Object now = tracked;
        if (now == null) {
            tracked = t;
        } else if (now instanceof Tracked one) {
            ArrayList<Tracked> all = new ArrayList<>(4);
            all.add(one);
            all.add(t);
            tracked = all;
        } else {
            ((ArrayList<Tracked>) now).add(t);
        }
    }

    /**
     * Removes {@code t} by identity (wrappers may delegate equals); false if it was not tracked.
     * The last one out leaves nothing tracked: that is the statement pin's end.
     */
    @SuppressWarnings("unchecked")
    boolean untrack(Tracked t) {
        Object now = tracked;
        if (now == t) {
            tracked = null;
            return true;
        }
        if (!(now instanceof ArrayList<?>)) {
            return false;
        }
        ArrayList<Tracked> all = (ArrayList<Tracked>) now;
        for (int i = 0, n = all.size(); i < n; i++) {
            if (all.get(i) == t) {
                all.set(i, all.get(n - 1));
                all.remove(n - 1);
                if (n == 1) {
                    tracked = null;
                }
                return true;
            }
        }
        return false;
    }

    /** Takes out what it tracks (null, one, or a list), to be closed: the connection is going. */
    Object takeTracked() {
        Object now = tracked;
        tracked = null;
        return now;
    }

    private static final PinReason[] REASONS = PinReason.values();

    private static int bit(PinReason r) {
        return 1 << r.ordinal();
    }
}
