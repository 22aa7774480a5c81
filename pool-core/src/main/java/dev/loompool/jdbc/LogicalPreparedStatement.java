package dev.loompool.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** A prepared statement: its SQL was classified once, at prepare time; the effect applies per execution. */
class LogicalPreparedStatement<S extends PreparedStatement> extends DelegatingPreparedStatement<S> {

    LogicalPreparedStatement(LogicalConnection owner, S delegate, SqlEffect effect) {
        super(owner, delegate, effect);
    }

    @Override
    public boolean execute() throws SQLException {
        before(effect);
        boolean result = super.execute();
        after(effect);
        return result;
    }

    @Override
    public ResultSet executeQuery() throws SQLException {
        before(effect);
        ResultSet result = super.executeQuery();
        after(effect);
        return result;
    }

    @Override
    public int executeUpdate() throws SQLException {
        before(effect);
        int result = super.executeUpdate();
        after(effect);
        return result;
    }

    @Override
    public long executeLargeUpdate() throws SQLException {
        before(effect);
        long result = super.executeLargeUpdate();
        after(effect);
        return result;
    }

    @Override
    public int[] executeBatch() throws SQLException {
        before(effect);
        int[] result = super.executeBatch();
        after(effect);
        return result;
    }
}
