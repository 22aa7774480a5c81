package dev.loompool.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A result set of a logical statement, or of {@code DatabaseMetaData}: those have no statement to
 * pin the connection, so they are tracked and pin it themselves until closed.
 */
final class LogicalResultSet extends DelegatingResultSet implements Tracked {

    private final Statement statement;
    private final LogicalConnection owner;
    private final boolean tracked;
    private boolean closed;

    LogicalResultSet(Statement statement, ResultSet delegate, LogicalConnection owner, boolean tracked) {
        super(delegate);
        this.statement = statement;
        this.owner = owner;
        this.tracked = tracked;
    }

    @Override
    SQLException error(SQLException e) {
        return owner.error(e);
    }

    @Override
    Statement statement() {
        return statement;
    }

    @Override
    public void close() throws SQLException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            delegate.close();
        } catch (SQLException e) {
            throw owner.error(e);
        } finally {
            if (tracked) {
                owner.untrack(this);
            } else if (owner.pins.closeOnCompletion && statement instanceof LogicalStatement<?> ls) {
                ls.resultSetClosed();
            }
        }
    }

    @Override
    public void closeQuietly() {
        closed = true;
        try {
            delegate.close();
        } catch (SQLException | RuntimeException ignored) {
            // the connection is being returned or is gone
        }
    }

    @Override
    public boolean isClosed() throws SQLException {
        return closed || super.isClosed();
    }
}
