package dev.loompool.jdbc.internal;

import dev.loompool.jdbc.internal.driver.Attr;
import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import dev.loompool.jdbc.internal.sql.SqlEffect;
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
        if (p != null && level != (h.own.marked.contains(Attr.ISOLATION) ? h.own.isolation : p.defaults.isolation)
                && p.serverTransactionOpen()) {
            // 25001 active_sql_transaction: what pgjdbc answers on a plain connection
            throw new SQLException("pool '" + h.pool.name + "': cannot change the transaction isolation level in the "
                    + "middle of a transaction; commit or roll back first", "25001");
        }
        h.own.isolation = level;
        h.own.marked.add(Attr.ISOLATION);
    }

    /** What {@code getTransactionIsolation} answers: the handle's choice, which no session has. */
    static int get(LogicalConnection h) throws SQLException {
        if (h.pool.transactionPooler && h.own != null && h.own.marked.contains(Attr.ISOLATION)) {
            h.ensureOpen();
            return h.own.isolation;
        }
        return HandleSettings.view(h, Attr.ISOLATION).isolation;
    }

    /**
     * Before a statement of a handle behind the pooler that chose settings: the pins as for any
     * statement ({@link Pins#beforeSql}), and the isolation, if it is not the default, sent first
     * in a transaction it has not been sent in yet, or refused in autocommit mode.
     */
    static void beforeSql(LogicalConnection h, PhysicalConnection p, SqlEffect e, String sql) throws SQLException {
        int level = h.own.isolation;
        if (!h.own.marked.contains(Attr.ISOLATION) || level == p.defaults.isolation) {
            Pins.beforeSql(h, p, e, sql);
            return;
        }
        if (p.current.autoCommit) {
            throw TransactionPooling.refusedInAutoCommit(h.pool, sql, name(level), name(p.defaults.isolation));
        }
        Pins.beforeSql(h, p, e, sql);
        long b = p.boundAs();
        if (p.isolationSentIn == b && p.serverTransactionOpen()) {
            return; // sent in the transaction open now
        }
        try (Statement st = p.raw.createStatement()) {
            st.execute("SET TRANSACTION ISOLATION LEVEL " + name(level)); // after the driver's BEGIN
        } catch (SQLException x) {
            throw h.error(x);
        }
        p.isolationSentIn = b;
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
