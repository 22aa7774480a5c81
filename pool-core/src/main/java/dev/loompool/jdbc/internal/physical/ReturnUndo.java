package dev.loompool.jdbc.internal.physical;

import dev.loompool.jdbc.internal.driver.SessionAttribute;
import dev.loompool.jdbc.internal.driver.BrokenConnections;
import dev.loompool.jdbc.internal.driver.JdbcUrls;
import dev.loompool.jdbc.internal.driver.SessionReset;
import dev.loompool.jdbc.internal.driver.Settings;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the release check of {@link JdbcPool} undoes on a returned connection, once it knows there
 * is something to undo: the last holder's transaction, its settings, its session state.
 */
final class ReturnUndo {

    /** JdbcPool's: the reset's lines stay under the logger they were always written to. */
    private static final Logger log = LoggerFactory.getLogger(JdbcPool.class);

    private ReturnUndo() {
    }

    /**
     * The release check's undo, when there is something to undo, bounded by validationTimeout; a
     * failure retires the connection, and counts as a breaker failure only if it says the
     * connection is broken (see {@link JdbcPool}). A Flight Recorder event records it if wanted.
     */
    static void onReturn(JdbcPool pool, PhysicalConnection p) throws Retired {
        ResetEvent event = null; // a Flight Recorder event, only when there is something to undo and it is recorded
        String undid = null; // what the undo undid, in words, only when there is something to undo and DEBUG is on
        p.forgetSavepoints(); // the last holder's end here with its transaction (rolled back below if open)
        p.schemaInTransaction = false; // its schema, set or not, is put back below (marked)
        try {
            boolean transaction = p.transactionMayBeOpen();
            if (transaction || p.sessionDirty || !p.current.marked.isEmpty()) { // else nothing to undo
                event = ResetEvent.start(p, transaction, pool.factory.sessionReset());
                // The DEBUG line's words, read before the undo clears them: one question to the logger here.
                undid = pool.lifecycle.on() ? ResetEvent.plan(p, transaction, pool.factory.sessionReset()) : null;
                // The reset runs on the releasing thread: a network that stopped answering must not
                // hold it in a ROLLBACK for ever. Bounded by validationTimeout; a timeout loses the
                // connection, and the server rolls back whatever was open when it goes. An undo that
                // sends nothing is not bounded: two socket-option calls less per Spring transaction.
                boolean talks = transaction || p.sessionDirty || !p.undoesInMemory();
                if (talks) {
                    p.raw.setNetworkTimeout(Runnable::run, pool.validationSeconds() * 1000);
                }
                undo(pool, p, transaction);
                if (talks) {
                    p.raw.setNetworkTimeout(Runnable::run, p.current.networkTimeout());
                }
            }
            p.raw.clearWarnings();
        } catch (Retired r) {
            ResetEvent.finish(event, pool.name, r);
            throw r;
        } catch (SQLException e) {
            Retired retired;
            if (BrokenConnections.lost(p.raw, e, pool.validationSeconds())) {
                retired = new Retired("broken during the reset: " + e.getSQLState());
            } else {
                log.warn("pool '{}': could not reset a returned connection, closing it (SQLState {}: {})",
                        pool.name, e.getSQLState(), pool.factory.secrets().mask(JdbcUrls.redact(e.getMessage())));
                retired = new Retired("reset failed: SQLState " + e.getSQLState());
            }
            ResetEvent.finish(event, pool.name, retired);
            throw retired;
        } catch (RuntimeException e) {
            // A driver's own fault (MariaDB Connector/J 2.7's reset() threw a NullPointerException) says
            // nothing about the database: the connection goes, as after a failed reset, and no breaker
            // failure is counted, else five returns in a row open the circuit on a healthy database.
            log.warn("pool '{}': the driver failed while resetting a returned connection, closing it ({})",
                    pool.name, pool.factory.secrets().mask(JdbcUrls.redact(String.valueOf(e))));
            Retired retired = new Retired("reset failed in the driver");
            ResetEvent.finish(event, pool.name, retired);
            throw retired;
        }
        ResetEvent.finish(event, pool.name, null);
        if (undid != null) {
            pool.lifecycle.reset(p, undid);
        }
    }

    /** Undoes what the last holder left: its transaction, its settings, its session state. */
    static void undo(JdbcPool pool, PhysicalConnection p, boolean transaction) throws SQLException, Retired {
        if (transaction) {
            rollback(p);
        }
        if (p.unresettable != null) {
            throw new Retired(p.unresettable);
        }
        if (p.sessionDirty || p.serverTransactionOpen() // still "open": SQL turned autocommit off
                || p.current.marked.contains(SessionAttribute.SCHEMA) && pool.factory.sessionReset().ownsSchema()) {
            resetSession(pool, p);
        } else if (!p.current.marked.isEmpty()) {
            for (SessionAttribute a : p.current.marked) {
                noDatabaseToGoBackTo(p, a);
                p.defaults.applyTo(p.raw, a);
                p.current.copyFrom(p.defaults, a);
            }
            p.current.marked.clear();
            forgetTypeNames(pool, p);
        }
        if (p.serverTransactionOpen()) {
            throw new Retired("the server still reports a transaction after the reset");
        }
    }

    /**
     * A connection made without a database (MariaDB, a URL without one) cannot go back to none
     * once {@code setCatalog} or {@code USE} chose one: B's unqualified SQL would run in A's database.
     * MySQL Connector/J reports none as an empty catalog, which it then refuses to set.
     */
    private static void noDatabaseToGoBackTo(PhysicalConnection p, SessionAttribute a) throws Retired {
        if (a == SessionAttribute.CATALOG && SessionReset.none(p.defaults.catalog())) {
            throw new Retired(SessionReset.NO_DATABASE_TO_GO_BACK_TO);
        }
    }

    /**
     * Rollback in autocommit mode is an error in pgjdbc: a transaction SQL began ends by SQL. On
     * MariaDB always by SQL: Connector/J's rollback() is not sent when its flags say no transaction,
     * and the flags may be stale (an error packet, or a statement another thread still ran when
     * they were read); the statement waits for the driver's lock, and its OK carries the state.
     */
    private static void rollback(PhysicalConnection p) throws SQLException {
        if (p.current.autoCommit() || p.wire.staleAfterErrors()) {
            try (Statement st = p.raw.createStatement()) {
                st.execute("ROLLBACK");
            }
        } else {
            p.raw.rollback();
        }
        p.transactionDirty = false;
        p.wireUnknown = false;
    }

    /**
     * After a session whose search path may have changed: the driver's type names as on a fresh
     * connection, or the connection goes (a driver whose names cannot be cleared).
     */
    private static void forgetTypeNames(JdbcPool pool, PhysicalConnection p) throws SQLException, Retired {
        if (p.searchPathChanged) {
            String kept = pool.factory.sessionReset().forgetTypeNames(p.raw);
            if (kept != null) {
                throw new Retired(kept);
            }
            p.searchPathChanged = false;
        }
    }

    private static void resetSession(JdbcPool pool, PhysicalConnection p) throws SQLException, Retired {
        SessionReset sessionReset = pool.factory.sessionReset();
        if (pool.transactionPooler) { // PgBouncer resets its own server connections; a DISCARD ALL here would reach another's
            throw new Retired("session state behind a pooler in transaction mode is not reset, the connection is closed");
        }
        if (!sessionReset.supported()) {
            throw new Retired("session state cannot be reset on this database");
        }
        if (!p.current.autoCommit()) {
            p.raw.setAutoCommit(true); // DISCARD ALL cannot run in the transaction pgjdbc would begin
        }
        sessionReset.reset(p.raw);
        p.noteValuesDiscarded(); // DISCARD ALL, COM_RESET_CONNECTION: no sequence value or insert id is left
        // Every session reset puts pgjdbc's type names back, not only after a path change the pool saw:
        // a view's or a column default's SQL can set the path too (set_config), unseen by the text.
        // In memory; the next borrower's first use of a type of its own looks it up again.
        p.searchPathChanged = true;
        forgetTypeNames(pool, p); // before the init SQL, which looks up what a fresh connection's would
        // A reset keeps some state (MariaDB keeps the database chosen by USE): put back every
        // setting the connection had when it was new, then the defaults and connectionInitSql.
        Settings now = pool.factory.initialize(p.raw);
        for (SessionAttribute a : SessionAttribute.values()) {
            if (!now.same(p.defaults, a)) {
                noDatabaseToGoBackTo(p, a);
                p.defaults.applyTo(p.raw, a);
            }
        }
        String left = sessionReset.leftover(p.raw, p.defaults.catalog()); // the server's database, not the driver's cache
        if (left != null) {
            throw new Retired(left);
        }
        p.current = p.defaults.copy();
        p.sessionDirty = false;
        p.transactionDirty = false;
    }
}
