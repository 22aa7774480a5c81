package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import dev.loompool.jdbc.internal.physical.Watcher;
import java.sql.SQLException;
import java.util.concurrent.Executor;

/**
 * The ends of a handle off its common path ({@link HandleLife} has close and the reclaim): an
 * abort, a reclaim found by the handle's next call, and what a call on an ended handle is told.
 * The state moves through {@link HandleLife#end}, so that exactly one caller ends the handle.
 */
final class HandleEnds {

    private HandleEnds() {
    }

    static void abort(HandleLife h, Executor executor) throws SQLException {
        Object was = h.end(HandleState.CLOSED);
        if (!HandleLife.open(was)) {
            return;
        }
        PhysicalConnection p = h.boundNow();
        boolean ours = p != null && p.unbind(h.heldBinding()); // else the reclaimer took it, and it may be another's now
        try {
            if (ours) {
                p.markBroken(); // an aborted connection is never reused
                p.raw.abort(executor);
            }
        } finally {
            h.finish(was, HandleState.CLOSED);
            if (p != null) {
                h.physical = null;
            }
            if (ours) {
                p.home().giveBack(p);
            }
        }
    }

    /**
     * The reclaimer took the connection as this handle let go of it: the handle ends as reclaimed.
     * Or the pool's close took it (and aborted it): the handle ends as closed.
     */
    /**
     * The connection broke under a handle that relied on its session ({@link Pins#lostSession}):
     * the handle ends, as the driver's connection does; its next call says why, and so does the
     * driver's error that broke it, which the pool's note is added to: the caller learns at once,
     * from an exception that names the pool, that this handle goes no further.
     */
    static void sessionLost(HandleLife h, SQLException driverError) {
        Object was = h.end(HandleState.SESSION_LOST);
        if (HandleLife.open(was)) {
            h.finish(was, HandleState.SESSION_LOST);
            driverError.addSuppressed(endedError(h, HandleState.SESSION_LOST));
        }
    }

    static SQLException reclaimedUnderUse(HandleLife h) {
        HandleState how = h.pool.isClosed() ? HandleState.CLOSED : HandleState.RECLAIMED;
        h.physical = null; // the reclaimer's or the closed pool's now, never this handle's again
        Object was = h.end(how);
        if (HandleLife.open(was)) {
            h.finish(was, how); // its connection is the reclaimer's; the rest of the handle is for this thread to close
        }
        return endedError(h, how);
    }

    static SQLException endedError(HandleLife h, HandleState s) {
        if (s == HandleState.ENDING) {
            s = h.settledEnd(); // whoever is ending it says how in a few steps
        }
        if (s == HandleState.SESSION_LOST) {
            return new SQLException("pool '" + h.pool.name + "': the connection broke and took with it the session "
                    + "this handle relied on (what SQL set on it, temporary tables, session locks, an explicit pin); "
                    + "a fresh connection would not have it, so this handle goes no further: close it and open a new one",
                    "08003");
        }
        return s == HandleState.RECLAIMED
                ? new SQLException("connection was reclaimed: its owner thread " + h.ownerThread().getName() + " ended and "
                        + "no other thread used it for " + Watcher.PERIOD_MILLIS + " ms (pool '" + h.pool.name
                        + "' has reclaimOnOwnerExit on); its transaction was rolled back", "08003")
                : new SQLException("connection is closed", "08003");
    }
}
