package dev.loompool.stub;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A strict connection's statement: it counts as open on its connection until closed, and so does
 * each result set it returns; as in JDBC, closing that result set closes the statement too once
 * {@code closeOnCompletion()} was called.
 */
final class StrictStatement extends StubStatement {

    private final String prepared;
    private boolean closed;
    private boolean closeOnCompletion;

    StrictStatement(StubConnection connection, String prepared) {
        super(connection);
        this.prepared = prepared;
        connection.openStatements.incrementAndGet();
    }

    @Override
    String prepared() {
        return prepared;
    }

    @Override
    public ResultSet executeQuery(String sql) throws SQLException {
        connection.run(sql);
        return new StrictResultSet(connection, this);
    }

    /** Its result set was closed. */
    void completed() {
        if (closeOnCompletion) {
            close();
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            connection.openStatements.decrementAndGet();
        }
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void closeOnCompletion() {
        closeOnCompletion = true;
    }

    @Override
    public boolean isCloseOnCompletion() {
        return closeOnCompletion;
    }

    @Override
    public Connection getConnection() {
        throw new AssertionError("the logical statement must answer getConnection itself");
    }
}
