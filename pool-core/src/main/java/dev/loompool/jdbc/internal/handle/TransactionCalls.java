package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import dev.loompool.jdbc.internal.driver.SessionAttribute;
import dev.loompool.jdbc.PinReason;
import java.sql.SQLException;

/**
 * A handle's JDBC transaction calls: they end or open the transaction pin (DESIGN.md §4), and
 * refuse to commit a transaction its broken connection lost.
 */
final class TransactionCalls {

    private TransactionCalls() {
    }

    static void commit(LogicalConnection h) throws SQLException {
        h.ensureOpen();
        if (h.lostTransaction) {
            throw lost(h);
        }
        end(h, true);
    }

    static void rollback(LogicalConnection h) throws SQLException {
        if (h.ended() == HandleState.SESSION_LOST) {
            return; // its work went with the session: nothing is committed, and an error handler's rollback() succeeds
        }
        h.ensureOpen();
        if (h.lostTransaction && h.physical == null) {
            h.lostTransaction = false; // the rollback the loss asked for: the server rolled back as the connection went
            return;
        }
        h.lostTransaction = false;
        end(h, false);
    }

    /**
     * The end, as a run of the handle ({@link HandleLife#runStarted}): another thread's release
     * decided meanwhile (its statement closed) waits for the pin's end here, so the connection goes
     * back after the commit, never under it.
     */
    private static void end(LogicalConnection h, boolean commit) throws SQLException {
        boolean bound;
        h.runStarted();
        try {
            PhysicalConnection p = h.physical;
            bound = p != null;
            if (bound) {
                endOn(h, p, commit);
            }
        } finally {
            h.runEnded();
            h.done(); // the server may have ended the transaction even where the call failed (a failed commit rolls back)
        }
        if (!bound && HandleSettings.view(h, SessionAttribute.AUTO_COMMIT).autoCommit()) {
            refusedOrNot(h, commit);
        } // else nothing bound, so no transaction begun: nothing to end
    }

    private static void endOn(LogicalConnection h, PhysicalConnection p, boolean commit) throws SQLException {
        p.ranOn(Thread.currentThread());
        Pins.remove(h, PinReason.STATEMENT_VALUE); // the handle's next exchange with the server, whether it succeeds or not
        if (!p.enter(h.heldBinding())) { // a close or the reclaimer overtook this call: it must not reach the connection
            throw overtaken(h);
        }
        try {
            if (commit) {
                p.raw.commit();
            } else {
                p.raw.rollback();
            }
        } catch (SQLException e) {
            throw h.error(e);
        } finally {
            p.leave();
        }
        p.noteWireCurrent(); // its reply carried the state (a MariaDB rollback() with the state unknown is sent)
        Pins.jdbcTransactionEnded(h, p, p.current().autoCommit());
    }

    /**
     * {@code commit()} or {@code rollback()} with autocommit on and nothing bound: the driver
     * answers, as it would without the pool. pgjdbc refuses both (25P01), MySQL Connector/J too;
     * MariaDB Connector/J accepts them. Code that believes it opened a transaction learns it did not.
     */
    private static void refusedOrNot(LogicalConnection h, boolean commit) throws SQLException {
        try {
            java.sql.Connection raw = h.bind();
            if (commit) {
                raw.commit();
            } else {
                raw.rollback();
            }
        } catch (SQLException e) {
            throw h.error(e);
        } finally {
            h.done();
        }
    }

    static void setAutoCommit(LogicalConnection h, boolean autoCommit) throws SQLException {
        if (autoCommit && h.lostTransaction) { // switching autocommit on would commit it: it cannot
            throw lost(h);
        }
        if (!autoCommit && h.physical == null) {
            beginsHere(h);
        }
        HandleSettings.chosen(h).chooseAutoCommit(autoCommit);
        if (autoCommit) {
            Pins.remove(h, PinReason.STATEMENT_VALUE); // it commits: an exchange with the server, as commit() is
        }
        // A run of the handle from the driver's call to the pin's change: a release another thread
        // decides meanwhile waits for it, so autocommit off on the connection is never let go
        // before its pin is in place, and a commit by autocommit on never goes back under the call.
        h.runStarted();
        try {
            PhysicalConnection p = h.physical;
            // unknown if another thread binds meanwhile: taken as on, so where the driver cannot say
            // whether a transaction is open, a pin SQL began is never ended by this call
            boolean before = p == null || p.current().autoCommit();
            HandleSettings.changed(h, SessionAttribute.AUTO_COMMIT); // switching it on commits, as the driver does
            if (h.physical == null || h.physical != p && p != null) {
                return; // let go meanwhile, or bound anew: that binding replayed the choice
            }
            p = h.physical; // the binding the choice reached: another thread's, if it bound meanwhile
            if (autoCommit) {
                Pins.jdbcTransactionEnded(h, p, before);
            } else {
                Pins.autoCommitOff(h, p);
            }
        } finally {
            h.runEnded();
            h.done(); // refused, or autocommit on: nothing of this call pins the connection it may have bound
        }
    }

    static boolean getAutoCommit(LogicalConnection h) throws SQLException {
        boolean autoCommit = HandleSettings.view(h, SessionAttribute.AUTO_COMMIT).autoCommit();
        if (!autoCommit && h.physical == null && !h.lostTransaction) {
            // Autocommit off: the handle is in a transaction from its first use, and this is how
            // DataSourceTransactionManager begins one on such a pool (it asks, and sets nothing).
            // A transaction lost with its connection is not begun again: rollback() first.
            beginsHere(h);
        }
        return autoCommit;
    }

    /**
     * A transaction begins on an unbound handle ({@code setAutoCommit(false)}, or the first use of
     * a handle whose autocommit is off): its physical connection is bound now, within the acquire
     * timeout, as a classic pool has it from {@code getConnection()}. Spring's transaction managers
     * and Hibernate begin this way, so the wait, its timeout and the exception an exhausted pool
     * raises belong to the begin ({@code CannotCreateTransactionException}), not to the first
     * statement, and a transaction timeout does not count them (DESIGN.md §5). The handle's
     * settings chosen before (Spring's {@code setReadOnly(true)}) are replayed by the bind, which
     * routes a read-only transaction to a replica.
     */
    static void beginsHere(LogicalConnection h) throws SQLException {
        h.bind();
    }

    /**
     * A close on another thread, or the reclaimer, ended the handle's binding as this call began:
     * it did not reach the connection. The handle lets go of it and says why, as its next call would.
     */
    static SQLException overtaken(LogicalConnection h) throws SQLException {
        h.unbind(); // the binding is not its own any more: a reclaim leaves the handle reclaimed
        h.ensureOpen(); // throws "connection is closed" or "connection was reclaimed: …"
        return new SQLException("pool '" + h.pool.name + "': the connection was closed by another thread as this call "
                + "began; it did not reach the database", "08003");
    }

    private static SQLException lost(LogicalConnection h) {
        return new SQLException("pool '" + h.pool.name + "': cannot commit, the transaction was lost when "
                + "its connection broke; roll back", "08003");
    }
}
