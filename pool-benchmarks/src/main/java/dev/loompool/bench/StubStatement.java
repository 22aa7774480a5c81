package dev.loompool.bench;

import java.sql.Connection;
import java.sql.ResultSet;

/** A statement whose query parks as its connection says and returns one row. */
final class StubStatement extends NoOpPreparedStatement {

    private final StubConnection connection;

    StubStatement(StubConnection connection) {
        this.connection = connection;
    }

    @Override
    public ResultSet executeQuery() {
        connection.query();
        return new StubResultSet();
    }

    @Override
    public ResultSet executeQuery(String sql) {
        connection.query();
        return new StubResultSet();
    }

    @Override
    public boolean execute(String sql) {
        connection.query();
        return false;
    }

    @Override
    public Connection getConnection() {
        return connection;
    }

    @Override
    public int getQueryTimeout() {
        return 0;
    }
}
