package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import dev.loompool.jdbc.internal.sql.SqlEffect;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * What a handle checks of a statement as it is made ({@code wrapPrepared} and its kin in
 * {@link LogicalConnection}) or as its SQL text runs ({@link LogicalStatement#sqlBefore}): session
 * SQL noted on the connection or refused behind a pooler, and a statement refused once it outlived
 * the binding it was made under.
 */
final class StatementChecks {

    private StatementChecks() {
    }

    /**
     * Session SQL, and a read of an earlier statement's value, behind a pooler in transaction mode
     * is refused when prepared (the driver's statement {@code s} is closed). While the pool's read
     * of its catalog has failed, every statement is session state. The common statement pays two
     * flag tests.
     */
    static SqlEffect behindPooler(LogicalConnection h, SqlEffect effect, String sql, Statement s) throws SQLException {
        if (!effect.session && h.classifier().catalogUnknown() && !h.pool.transactionPooler) {
            // The built-in table knows no view, trigger or operator of this database: a text that
            // names one could change the session unseen. Pinned, it is reset at close. (Behind a
            // pooler session state is refused, not pinned: there the named rules only apply.)
            effect = SqlEffect.of(true, effect.tx, effect.values);
        }
        if (effect.session) {
            unresettable(h, sql);
        }
        return (effect.session || effect.readsPrevious()) && h.pool.transactionPooler
                ? TransactionPooling.check(h, effect, sql, s) : effect;
    }

    /** Session SQL that leaves what no reset removes: the connection will be retired, not reused. */
    private static void unresettable(LogicalConnection h, String sql) {
        PhysicalConnection p = h.physical;
        if (h.classifier().noteCatalogChange(sql) && p != null) {
            p.noteDdl();
        }
        if (p != null && h.classifier().mayChangeSearchPath(sql)) {
            p.noteSearchPathChanged();
        }
        if (p != null && h.classifier().unresettable(sql)) {
            p.noteUnresettable("SQL that may leave what no session reset removes (a LOAD of a library, a dblink "
                    + "connection, an extension)");
        }
    }

    /**
     * After the driver made a statement, already tracked: if a close on another thread ended the
     * binding meanwhile, that close could not see it, and its connection may be the next
     * borrower's. It is closed, not handed out. Two loads on the prepare path, no write.
     */
    static void refuseIfLetGo(LogicalConnection h, LogicalStatement<?> s) throws SQLException {
        PhysicalConnection p = h.physical;
        if (p != null && p.binding() == h.heldBinding()) {
            return;
        }
        s.closeQuietly();
        Pins.untrack(h, s);
        throw outlived(h);
    }

    /**
     * A statement of this handle whose connection went back: the handle was closed by another
     * thread while the statement was made, or since. HY010 (function sequence error), not 08003:
     * nothing about the connection, which may be another borrower's now, is broken or to be checked.
     */
    static SQLException outlived(LogicalConnection h) {
        return new SQLException("pool '" + h.pool.name + "': the connection handle of this statement was closed "
                + "(on another thread, while or after the statement was made) and its physical connection went back "
                + "to the pool, where another borrower may have it; the statement is closed. Close a connection only "
                + "after the statements made on it are done", "HY010");
    }
}
