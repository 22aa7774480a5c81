package dev.loompool.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A statement of a logical connection. It pins the physical connection while open, and reports
 * the SQL it runs so that {@code BEGIN}, {@code COMMIT} or {@code SET} pin or unpin. Prepared and
 * callable statements extend it (through their generated delegates), so this logic is written once.
 */
class LogicalStatement<S extends Statement> extends DelegatingStatement<S> implements Tracked {

    final LogicalConnection owner;
    /**
     * For prepared and callable statements: what their SQL does, found at prepare time. Null once
     * closed, which saves a field: this object is allocated on every prepare, the hot path.
     */
    private SqlEffect effect;

    LogicalStatement(LogicalConnection owner, S delegate, SqlEffect effect) {
        super(delegate);
        this.owner = owner;
        this.effect = effect;
    }

    @Override
    final SQLException error(SQLException e) {
        return owner.error(e);
    }

    @Override
    final ResultSet wrap(ResultSet rs) {
        return rs == null ? null : new LogicalResultSet(rs, this);
    }

    @Override
    final Connection connection() {
        return owner;
    }

    /** Every call on it makes its thread the handle's user (DESIGN.md §4, "Coroutine end"). */
    @Override
    final void touch() throws SQLException {
        owner.touchOwner();
    }

    @Override
    public final void close() throws SQLException {
        if (effect == null || !owner.touchOwnerQuietly()) {
            return; // closed, or reclaimed: the reclaimer closed it
        }
        effect = null;
        try {
            delegate.close();
        } catch (SQLException e) {
            throw owner.error(e);
        } finally {
            owner.untrack(this);
        }
    }

    @Override
    public final void closeQuietly() {
        effect = null;
        try {
            delegate.close();
        } catch (SQLException | RuntimeException ignored) {
            // the connection is being returned or is gone; nothing to tell anybody
        }
    }

    /** The driver will close this statement with its last result set: the handle must look then. */
    @Override
    public final void closeOnCompletion() throws SQLException {
        super.closeOnCompletion();
        owner.closeOnCompletion = true;
    }

    /** One of its result sets was closed: if that closed the statement too, its pin ends. */
    final void resultSetClosed() {
        if (effect == null) {
            return;
        }
        boolean closedByDriver;
        try {
            closedByDriver = delegate.isClosed();
        } catch (SQLException e) {
            closedByDriver = false; // the next call on it will tell
        }
        if (closedByDriver) {
            effect = null;
            owner.untrack(this);
        }
    }

    @Override
    public final boolean isClosed() throws SQLException {
        if (effect == null || !owner.touchOwnerQuietly()) {
            return true;
        }
        try {
            return delegate.isClosed();
        } catch (SQLException e) {
            throw owner.error(e);
        }
    }

    /** Before SQL runs: a BEGIN or a SET pins at once, even if it then fails. */
    @Override
    final SqlEffect sqlBefore(String sql) throws SQLException {
        return applyBefore(owner.classifier().classify(sql));
    }

    /** A prepared statement's SQL was classified once, at prepare time. */
    @Override
    final SqlEffect sqlBefore() throws SQLException {
        return applyBefore(effect);
    }

    private SqlEffect applyBefore(SqlEffect e) throws SQLException {
        if (effect == null) {
            throw new SQLException("statement is closed", "HY010");
        }
        owner.beforeSql(e);
        return e;
    }

    /** After SQL succeeded: a COMMIT or ROLLBACK unpins. */
    @Override
    final void sqlAfter(SqlEffect e) {
        owner.afterSql(e);
    }
}
