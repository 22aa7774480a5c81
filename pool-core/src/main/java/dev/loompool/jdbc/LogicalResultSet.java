package dev.loompool.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A result set of a logical statement: its statement pins the connection. One is allocated on
 * every query, so it holds no more than it must: the handle is the statement's.
 * {@link MetaDataResultSet} is the kind with no statement, which pins by itself.
 */
class LogicalResultSet extends DelegatingResultSet implements Tracked {

    private final LogicalStatement<?> statement;
    private boolean closed;

    LogicalResultSet(ResultSet delegate, LogicalStatement<?> statement) {
        super(delegate);
        this.statement = statement;
    }

    LogicalConnection owner() {
        return statement.owner;
    }

    @Override
    final SQLException error(SQLException e) {
        return owner().error(e);
    }

    @Override
    final Statement statement() {
        return statement;
    }

    /** Every call on it makes its thread the handle's user (DESIGN.md §4, "Coroutine end"). */
    @Override
    final void touch() throws SQLException {
        owner().touchOwner();
    }

    @Override
    public final void close() throws SQLException {
        if (closed) {
            return;
        }
        closed = true;
        if (!owner().touchOwnerQuietly()) {
            return; // reclaimed: the reclaimer closed it, or its statement
        }
        try {
            delegate.close();
        } catch (SQLException e) {
            throw owner().error(e);
        } finally {
            closed();
        }
    }

    /** After close: a statement the driver closes with its last result set no longer pins. */
    void closed() {
        if (statement.owner.closeOnCompletion) {
            statement.resultSetClosed();
        }
    }

    @Override
    public final void closeQuietly() {
        closed = true;
        try {
            delegate.close();
        } catch (SQLException | RuntimeException ignored) {
            // the connection is being returned or is gone
        }
    }

    @Override
    public final boolean isClosed() throws SQLException {
        if (closed || !owner().touchOwnerQuietly()) {
            return true;
        }
        try {
            return delegate.isClosed();
        } catch (SQLException e) {
            throw owner().error(e);
        }
    }
}
