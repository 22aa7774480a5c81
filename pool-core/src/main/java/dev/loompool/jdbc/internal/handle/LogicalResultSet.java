package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.internal.sql.SqlEffect;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A result set of a logical statement or of the connection's metadata ({@link ResultSetOwner}):
 * the rules of its close. One is allocated on every query, so it holds no more than it must. The
 * final class {@code DelegatingResultSet}, generated at build time (the codegen module's DelegateGenerator),
 * forwards the other methods to the driver's result set, each after {@link #touch()}.
 */
abstract class LogicalResultSet implements ResultSet, Tracked {

    final ResultSet delegate;
    private final ResultSetOwner owner;
    private WrapperState state = WrapperState.OPEN;

    LogicalResultSet(ResultSet delegate, ResultSetOwner owner) {
        this.delegate = delegate;
        this.owner = owner;
    }

    /** Every SQLException from the driver passes here; returns what to throw. */
    final SQLException error(SQLException e) {
        return owner.handle.error(e);
    }

    /** The logical statement it came from, or null for metadata. */
    final Statement statement() {
        return owner.statementOf();
    }

    /**
     * Before every call: a result set that is closed, or whose statement is, refuses, as JDBC
     * says (its connection may be the next borrower's by then); its thread becomes the handle's
     * user (DESIGN.md §4, "Coroutine end").
     */
    final void touch() throws SQLException {
        owner.handle.touchOwner(); // first: a reclaimed handle's result sets say why they were closed
        if (state == WrapperState.CLOSED || owner.ownerClosed()) {
            throw LogicalStatement.closedError("result set");
        }
    }

    /** A getter returned a driver object that may still talk to the connection: it pins. */
    final <T> T live(T value) throws SQLException {
        return SessionCalls.live(owner.handle, owner, value, owner.ownerClosed());
    }

    /** {@link #live} for {@code getObject(…, type)}. */
    final <T> T liveAs(T value, Class<?> type) throws SQLException {
        return SessionCalls.liveAs(owner.handle, owner, value, type, owner.ownerClosed());
    }

    // The updatable result set's row calls: pgjdbc sends an UPDATE, INSERT, DELETE or SELECT of its
    // own (with its BEGIN after a commit), which passes no statement's hook; so does its first update
    // call or moveToInsertRow (the table's key looked up; generated). Run through the handle's
    // (LogicalConnection#beforeSql), so that behind a pooler the transaction's isolation goes first.

    @Override
    public final void updateRow() throws SQLException {
        touch();
        driverSql();
        try {
            delegate.updateRow();
        } catch (SQLException e) {
            throw error(e);
        }
    }

    @Override
    public final void insertRow() throws SQLException {
        touch();
        driverSql();
        try {
            delegate.insertRow();
        } catch (SQLException e) {
            throw error(e);
        }
    }

    @Override
    public final void deleteRow() throws SQLException {
        touch();
        driverSql();
        try {
            delegate.deleteRow();
        } catch (SQLException e) {
            throw error(e);
        }
    }

    @Override
    public final void refreshRow() throws SQLException {
        touch();
        driverSql();
        try {
            delegate.refreshRow();
        } catch (SQLException e) {
            throw error(e);
        }
    }

    /**
     * Before a call that may make the driver send SQL of its own; after {@link #touch()}. Behind a
     * pooler only, where the isolation must go first: elsewhere these calls stay as they were.
     */
    final void driverSql() throws SQLException {
        if (owner.handle.pool.transactionPooler) {
            owner.handle.beforeSql(SqlEffect.NONE, null);
        }
    }

    @Override
    public final <T> T unwrap(Class<T> iface) throws SQLException {
        return SessionCalls.unwrap(owner.handle, this, delegate, state == WrapperState.CLOSED || owner.ownerClosed(),
                iface);
    }

    @Override
    public final boolean isWrapperFor(Class<?> iface) throws SQLException {
        return SessionCalls.isWrapperFor(owner.handle, this, delegate, iface);
    }

    @Override
    public final void close() throws SQLException {
        if (state == WrapperState.CLOSED) {
            return;
        }
        state = WrapperState.CLOSED;
        if (!owner.handle.touchOwnerQuietly()) {
            return; // reclaimed: the reclaimer closed it, or its statement
        }
        try {
            delegate.close();
        } catch (SQLException e) {
            throw owner.handle.error(e);
        } finally {
            owner.resultSetClosed(this);
        }
    }

    @Override
    public final void closeQuietly() {
        state = WrapperState.CLOSED;
        Tracked.closeQuietly(delegate);
    }

    @Override
    public final boolean isClosed() throws SQLException {
        if (state == WrapperState.CLOSED || !owner.handle.touchOwnerQuietly()) {
            return true;
        }
        try {
            return delegate.isClosed();
        } catch (SQLException e) {
            throw owner.handle.error(e);
        }
    }
}
