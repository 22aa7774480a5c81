package dev.loompool.jdbc.internal;

import java.sql.SQLException;
import java.sql.Statement;

/**
 * What the release check of {@link JdbcPool} undoes on a returned connection, once it knows there
 * is something to undo: the last holder's transaction, its settings, its session state.
 */
final class ReturnUndo {

    private ReturnUndo() {
    }

    /** Undoes what the last holder left: its transaction, its settings, its session state. */
    static void undo(JdbcPool pool, PhysicalConnection p, boolean transaction) throws SQLException, Retired {
        if (transaction) {
            rollback(p);
        }
        if (p.sessionDirty || p.serverTransactionOpen() // still "open": SQL turned autocommit off
                || p.current.marked.contains(Attr.SCHEMA) && pool.factory.sessionReset().ownsSchema()) {
            resetSession(pool, p);
        } else if (!p.current.marked.isEmpty()) {
            for (Attr a : p.current.marked) {
                p.defaults.applyTo(p.raw, a);
                p.current.copyFrom(p.defaults, a);
            }
            p.current.marked.clear();
        }
        if (p.serverTransactionOpen()) {
            throw new Retired("the server still reports a transaction after the reset");
        }
    }

    /** Rollback in autocommit mode is an error in pgjdbc: a transaction SQL began ends by SQL. */
    private static void rollback(PhysicalConnection p) throws SQLException {
        if (p.current.autoCommit) {
            try (Statement st = p.raw.createStatement()) {
                st.execute("ROLLBACK");
            }
        } else {
            p.raw.rollback();
        }
        p.transactionDirty = false;
    }

    private static void resetSession(JdbcPool pool, PhysicalConnection p) throws SQLException, Retired {
        SessionReset sessionReset = pool.factory.sessionReset();
        if (pool.transactionPooler) { // PgBouncer resets its own server connections; a DISCARD ALL here would reach another's
            throw new Retired("session state behind a pooler in transaction mode is not reset, the connection is closed");
        }
        if (!sessionReset.supported()) {
            throw new Retired("session state cannot be reset on this database");
        }
        if (!p.current.autoCommit) {
            p.raw.setAutoCommit(true); // DISCARD ALL cannot run in the transaction pgjdbc would begin
        }
        sessionReset.reset(p.raw);
        // A reset keeps some state (MariaDB keeps the database chosen by USE): put back every
        // setting the connection had when it was new, then the defaults and connectionInitSql.
        Settings now = pool.factory.initialize(p.raw);
        for (Attr a : Attr.values()) {
            if (!now.same(p.defaults, a)) {
                p.defaults.applyTo(p.raw, a);
            }
        }
        p.current = p.defaults.copy();
        p.sessionDirty = false;
        p.transactionDirty = false;
    }
}
