package dev.loompool.jdbc.internal.physical;

import dev.loompool.jdbc.internal.driver.Attr;
import dev.loompool.jdbc.internal.driver.SessionReset;
import dev.loompool.jdbc.internal.driver.Settings;
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
        if (p.unresettable != null) {
            throw new Retired(p.unresettable);
        }
        if (p.sessionDirty || p.serverTransactionOpen() // still "open": SQL turned autocommit off
                || p.current.marked.contains(Attr.SCHEMA) && pool.factory.sessionReset().ownsSchema()) {
            resetSession(pool, p);
        } else if (!p.current.marked.isEmpty()) {
            for (Attr a : p.current.marked) {
                noDatabaseToGoBackTo(p, a);
                p.defaults.applyTo(p.raw, a);
                p.current.copyFrom(p.defaults, a);
            }
            p.current.marked.clear();
        }
        if (p.serverTransactionOpen()) {
            throw new Retired("the server still reports a transaction after the reset");
        }
    }

    /**
     * A connection made without a database (MariaDB, a URL without one) cannot go back to none
     * once {@code setCatalog} or {@code USE} chose one: B's unqualified SQL would run in A's database.
     */
    private static void noDatabaseToGoBackTo(PhysicalConnection p, Attr a) throws Retired {
        if (a == Attr.CATALOG && p.defaults.catalog == null) {
            throw new Retired("a database was chosen on a connection made without one, which cannot be unset");
        }
    }

    /**
     * Rollback in autocommit mode is an error in pgjdbc: a transaction SQL began ends by SQL. On
     * MariaDB always by SQL: Connector/J's rollback() is not sent when its flags say no transaction,
     * and the flags may be stale (an error packet, or a statement another thread still ran when
     * they were read); the statement waits for the driver's lock, and its OK carries the state.
     */
    private static void rollback(PhysicalConnection p) throws SQLException {
        if (p.current.autoCommit || p.wire.staleAfterErrors()) {
            try (Statement st = p.raw.createStatement()) {
                st.execute("ROLLBACK");
            }
        } else {
            p.raw.rollback();
        }
        p.transactionDirty = false;
        p.wireUnknown = false;
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
                noDatabaseToGoBackTo(p, a);
                p.defaults.applyTo(p.raw, a);
            }
        }
        String left = sessionReset.leftover(p.raw);
        if (left != null) {
            throw new Retired(left);
        }
        p.current = p.defaults.copy();
        p.sessionDirty = false;
        p.transactionDirty = false;
    }
}
