package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.internal.driver.SessionAttribute;
import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import dev.loompool.jdbc.internal.sql.SqlEffect;
import dev.loompool.jdbc.internal.sql.SqlEffect.Tx;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A handle's isolation level behind a pooler in transaction mode (DESIGN.md §7, issue 30). pgjdbc
 * sets it on the session ({@code SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL …}),
 * which PgBouncer would leave on a server connection it hands to other clients, and would not
 * give this handle's next transaction. The handle remembers the level instead, and sends
 * {@code SET TRANSACTION ISOLATION LEVEL …} as the first statement of each of its transactions:
 * executed on the physical connection with autocommit off, pgjdbc sends its {@code BEGIN} (or
 * {@code BEGIN READ ONLY}) first, so the level lasts that transaction and nothing is left behind.
 *
 * <ul>
 * <li>Sent again at every transaction: after a commit or rollback the next statement begins a new
 * one. {@code COMMIT AND CHAIN} keeps it, as PostgreSQL carries the characteristics over.</li>
 * <li>With autocommit on, a statement is its own transaction and nothing can come before it: a
 * statement at a level other than the default is refused, never run at a weaker one.</li>
 * <li>A transaction something else began (a metadata query, a savepoint, before any statement
 * of the handle) still gets the {@code SET TRANSACTION}: PostgreSQL refuses it if a query already
 * ran there ({@code 25001}), and the caller sees that error instead of a weaker level.</li>
 * <li>A transaction begun inside one execute (a text or batch that ends or begins one and then
 * runs another statement) has no moment to be sent the level in: refused with autocommit off,
 * whatever the level. The updatable result set's calls that send SQL of pgjdbc's own pass the hook.</li>
 * <li>The default is the level sessions reset to (driver/Settings#resetIsolation), not one a
 * client of the pooler left on a server connection; a level the handle chose is sent even when it
 * is the default, since that server connection may have another.</li>
 * </ul>
 */
final class TransactionIsolation {

    private TransactionIsolation() {
    }

    /**
     * {@code setTransactionIsolation} behind the pooler: remembered, never sent on the session.
     * Refused as pgjdbc refuses it: an unknown level, and a change in the middle of a transaction.
     */
    static void set(LogicalConnection h, int level) throws SQLException {
        HandleSettings.chosen(h); // refuses on a closed handle
        if (name(level) == null) {
            throw new SQLException("pool '" + h.pool.name + "': transaction isolation level " + level
                    + " is not supported", "0A000"); // feature_not_supported, pgjdbc's own
        }
        PhysicalConnection p = h.physical;
        if (p != null && level != (h.own.marked.contains(SessionAttribute.ISOLATION) ? h.own.isolation() : p.defaults().isolation())
                && p.serverTransactionOpen()) {
            // 25001 active_sql_transaction: what pgjdbc answers on a plain connection
            throw new SQLException("pool '" + h.pool.name + "': cannot change the transaction isolation level in the "
                    + "middle of a transaction; commit or roll back first", "25001");
        }
        h.own.chooseIsolation(level);
        h.own.marked.add(SessionAttribute.ISOLATION);
    }

    /**
     * What {@code getTransactionIsolation} answers. Not behind a pooler: inside a transaction the
     * driver's answer (SQL {@code SET TRANSACTION ISOLATION LEVEL} sets that transaction's level,
     * which pgjdbc's {@code SHOW} reads and the handle's memory does not know; pgjdbc asks the
     * server on every call, so this costs what the plain driver costs), else the handle's view.
     * Behind the pooler: the handle's choice, which no session has.
     */
    static int get(LogicalConnection h) throws SQLException {
        if (!h.pool.transactionPooler) {
            PhysicalConnection p = h.physical;
            if (p != null && !p.sessionDirty() && p.serverTransactionOpen()) {
                h.ensureOpen();
                return HandleSettings.driverAnswer(h, p, java.sql.Connection::getTransactionIsolation);
            }
            return HandleSettings.view(h, SessionAttribute.ISOLATION).isolation();
        }
        h.ensureOpen();
        if (h.own != null && h.own.marked.contains(SessionAttribute.ISOLATION)) {
            return h.own.isolation();
        }
        // Not the driver's SHOW: that reads whichever server connection PgBouncer gives, where another
        // client may have left SET SESSION CHARACTERISTICS. The default, as the pool read it (reset_val).
        PhysicalConnection p = h.physical;
        return p != null ? p.defaults().isolation() : HandleSettings.defaults(h).isolation();
    }

    /**
     * Before a statement of a handle behind the pooler: the pins as for any statement
     * ({@link Pins#beforeSql}), and, once the handle chose a level, that level sent first in a
     * transaction it has not been sent in yet, even the default (another server connection may
     * have another), or, in autocommit mode, a statement refused if the level is not the default.
     * A handle that never chose one pays one field test, and no round trip.
     */
    static void beforeSql(LogicalConnection h, PhysicalConnection p, SqlEffect e, String sql) throws SQLException {
        if (e.tx != Tx.SAME && sql != null && !p.current().autoCommit() && h.classifier().transactionBoundaryThenMore(sql)) {
            throw TransactionPooling.refusedAfterBoundary(h.pool, sql, "the text");
        }
        if (h.own == null || !h.own.marked.contains(SessionAttribute.ISOLATION)) {
            Pins.beforeSql(h, p, e, sql);
            return;
        }
        int level = h.own.isolation();
        if (p.current().autoCommit()) {
            if (level != p.defaults().isolation()) {
                throw TransactionPooling.refusedInAutoCommit(h.pool, sql, name(level), name(p.defaults().isolation()));
            }
            Pins.beforeSql(h, p, e, sql); // the default: what a statement in autocommit mode runs at
            return;
        }
        Pins.beforeSql(h, p, e, sql);
        long b = p.boundAs();
        if (p.isolationSentIn() == b && p.serverTransactionOpen()) {
            return; // sent in the transaction open now
        }
        try (Statement st = p.raw.createStatement()) {
            st.execute("SET TRANSACTION ISOLATION LEVEL " + name(level)); // after the driver's BEGIN
        } catch (SQLException x) {
            throw h.error(x);
        }
        p.noteIsolationSent(b);
    }

    /**
     * A batch behind the pooler in which a statement that ends or begins a transaction is followed
     * by another ({@code boundaryBefore}), or a prepared one of such a statement run more than
     * once: refused with autocommit off, as a text that does so is ({@link #beforeSql}).
     */
    static void batch(LogicalConnection h, String sql) throws SQLException {
        PhysicalConnection p = h.physical;
        if (h.pool.transactionPooler && p != null && !p.current().autoCommit()) {
            throw TransactionPooling.refusedAfterBoundary(h.pool, sql, "the batch");
        }
    }

    /** The SQL name of a JDBC level, null for one PostgreSQL has not. */
    static String name(int level) {
        switch (level) {
            case Connection.TRANSACTION_READ_UNCOMMITTED:
                return "READ UNCOMMITTED";
            case Connection.TRANSACTION_READ_COMMITTED:
                return "READ COMMITTED";
            case Connection.TRANSACTION_REPEATABLE_READ:
                return "REPEATABLE READ";
            case Connection.TRANSACTION_SERIALIZABLE:
                return "SERIALIZABLE";
            default:
                return null;
        }
    }
}
