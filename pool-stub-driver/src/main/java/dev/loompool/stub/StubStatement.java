package dev.loompool.stub;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A statement of a cheap {@link StubConnection}: executing runs the SQL on the connection, a query
 * returns one row. It keeps one field on purpose: the benchmarks' bytes per cycle count it (P6), so
 * it must not grow. A strict connection's statements are {@link StrictStatement}s.
 */
class StubStatement extends NoOpPreparedStatement {

    final StubConnection connection;

    StubStatement(StubConnection connection) {
        this.connection = connection;
    }

    /** The SQL it was prepared with; a cheap connection does not look at it, so it is not kept. */
    String prepared() {
        return null;
    }

    @Override
    public ResultSet executeQuery(String sql) throws SQLException {
        connection.run(sql);
        return new StubResultSet();
    }

    @Override
    public ResultSet executeQuery() throws SQLException {
        return executeQuery(prepared());
    }

    @Override
    public boolean execute(String sql) throws SQLException {
        connection.run(sql);
        return false;
    }

    @Override
    public boolean execute() throws SQLException {
        return execute(prepared());
    }

    @Override
    public int executeUpdate(String sql) throws SQLException {
        connection.run(sql);
        return 1;
    }

    @Override
    public int executeUpdate() throws SQLException {
        return executeUpdate(prepared());
    }

    @Override
    public Connection getConnection() {
        return connection;
    }
}
