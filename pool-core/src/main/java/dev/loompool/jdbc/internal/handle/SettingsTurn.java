package dev.loompool.jdbc.internal.handle;

import java.sql.SQLException;
import java.util.concurrent.locks.LockSupport;

/**
 * One thread at a time in the settings of a handle (DESIGN.md §4 "One state machine, every
 * thread"): its setters, getters and transaction calls, which read and write the settings the
 * handle chose ({@code LogicalConnection.own}) and the connection's current ones, and may send them
 * to the driver. Two threads that choose settings at once on the plain driver both stand; without
 * a turn one could make the handle's settings while the other made its own, and one choice (an
 * autocommit off) was lost. A turn is held across the driver's call, as the driver's own lock is,
 * but never by a statement, so a statement on another thread never waits for it. Re-entered by
 * its holder (a setter that reads a getter) without waiting. A wait for it ends with the handle,
 * and with an interrupt.
 */
final class SettingsTurn {


    /** The longest park between two looks while another thread holds the turn (it may wait for a connection). */
    private static final long MAX_PARK_NANOS = 1_000_000;

    private SettingsTurn() {
    }

    /** The turn of a thread that waited for it, since {@code from} (nanoTime): made only when one waits. */
    private record Waited(Thread thread, long from) {
    }

    /**
     * Takes the turn of {@code h}'s settings: true if taken now, false if this thread holds it
     * already, or if the handle ended while it waited (the call then says so itself, or, as a
     * rollback after a lost session does, returns).
     *
     * @throws SQLException the thread was interrupted while it waited (its flag stays set)
     */
    static boolean take(LogicalConnection h) throws SQLException {
        Thread me = Thread.currentThread();
        Object holder = LogicalConnection.SETTINGS_TURN.getOpaque(h);
        if (holder == me || holder instanceof Waited w && w.thread() == me) {
            return false;
        }
        if (holder == null && LogicalConnection.SETTINGS_TURN.compareAndSet(h, null, me)) {
            return true; // the common case: nobody else in the handle's settings
        }
        Waited waited = new Waited(me, System.nanoTime());
        long park = 10_000;
        for (int spins = 0; !LogicalConnection.SETTINGS_TURN.compareAndSet(h, null, waited); spins++) {
            if (spins < 100) {
                Thread.onSpinWait();
                continue;
            }
            if (me.isInterrupted()) {
                throw new SQLException("pool '" + h.pool.name + "': interrupted while another thread of this connection "
                        + "held its settings (a setter, a getter, a commit or rollback)");
            }
            if (!h.isOpen()) {
                return false;
            }
            LockSupport.parkNanos(park);
            park = Math.min(park * 2, MAX_PARK_NANOS);
        }
        return true;
    }

    /**
     * When the calling thread began to wait for the turn it holds, on nanoTime; 0 if it holds none
     * or took it without waiting. A bind in that turn fails at once if an acquire of the handle
     * failed since: the thread waited behind it, and must not wait a timeout of its own.
     */
    static long waitedFrom(LogicalConnection h) {
        return LogicalConnection.SETTINGS_TURN.getOpaque(h) instanceof Waited w && w.thread() == Thread.currentThread() ? w.from() : 0;
    }

    /** Gives the turn back if {@link #take} took it. */
    static void give(LogicalConnection h, boolean taken) {
        if (taken) {
            LogicalConnection.SETTINGS_TURN.setRelease(h, null);
        }
    }
}
