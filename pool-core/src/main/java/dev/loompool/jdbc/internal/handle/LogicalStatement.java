package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import dev.loompool.jdbc.internal.sql.SqlEffect;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A statement of a logical connection: every rule of the plain, prepared and callable ones. It
 * pins the physical connection while open, and reports the SQL it runs so that {@code BEGIN},
 * {@code COMMIT} or {@code SET} pin or unpin. The final classes {@code DelegatingStatement},
 * {@code DelegatingPreparedStatement} and {@code DelegatingCallableStatement}, generated at build
 * time (the codegen module's DelegateGenerator), forward the other methods to the driver's statement:
 * {@link #touch()} first, SQL between {@link #sqlBefore} and {@link #sqlAfter}, errors through
 * {@link #error}, result sets through {@link #wrap}.
 */
abstract class LogicalStatement<S extends Statement> extends ResultSetOwner implements Statement, Tracked {

    final S delegate;
    /** What its SQL does, for prepared and callable statements: found once, at prepare time. */
    private final SqlEffect effect;
    /** The catalog it was classified with ({@link SqlClassifier#generation}): a later one may say otherwise. */
    private final int catalog;
    /**
     * Its SQL, for prepared and callable statements whose effect has value flags (named if refused)
     * or changes the transaction (read again behind a pooler: {@link TransactionIsolation#beforeSql}).
     */
    String sql;
    /** A statement added to its batch ends or begins a transaction: behind a pooler, nothing may follow it. */
    private boolean batchBoundary;
    private WrapperState state = WrapperState.OPEN;

    LogicalStatement(LogicalConnection handle, S delegate, SqlEffect effect) {
        super(handle);
        this.delegate = delegate;
        this.effect = effect;
        this.catalog = handle.pool.classifier.generation();
    }

    /** Every SQLException from the driver passes here; returns what to throw. */
    final SQLException error(SQLException e) {
        return handle.error(e);
    }

    /** Wraps a driver result set so that it never escapes unwrapped. */
    final ResultSet wrap(ResultSet rs) {
        return rs == null ? null : new DelegatingResultSet(rs, this);
    }

    final Connection connection() {
        return handle;
    }

    /**
     * Before every call: a closed statement refuses, as JDBC says (some drivers answer a few calls
     * after close from their connection, which may be the next borrower's by then: MariaDB's
     * {@code getWarnings()}); its thread becomes the handle's user (DESIGN.md §4, "Coroutine end").
     */
    final void touch() throws SQLException {
        handle.touchOwner(); // first: a reclaimed handle's statements say why they were closed
        if (state == WrapperState.CLOSED) {
            throw closedError("statement");
        }
    }

    static SQLException closedError(String what) {
        return new SQLException(what + " is closed", "HY010");
    }

    /**
     * Closes it, from whichever thread: the handle's own, a helper that ran it, a watchdog. A
     * statement still running on another thread keeps the connection until its run ends, then the
     * connection goes back if nothing else pins it ({@link HandleLife#releaseLocked}).
     */
    @Override
    public final void close() throws SQLException {
        if (state == WrapperState.CLOSED || !handle.touchOwnerQuietly()) {
            return; // closed, or reclaimed: the reclaimer closed it
        }
        state = WrapperState.CLOSED;
        try {
            delegate.close();
        } catch (SQLException e) {
            throw handle.error(e);
        } finally {
            handle.untrack(this);
        }
    }

    @Override
    public final void closeQuietly() {
        state = WrapperState.CLOSED;
        Tracked.closeQuietly(delegate);
    }

    /** The driver will close this statement with its last result set: the handle must look then. */
    @Override
    public final void closeOnCompletion() throws SQLException {
        touch();
        try {
            delegate.closeOnCompletion();
        } catch (SQLException e) {
            throw error(e);
        }
        handle.closeOnCompletion = true;
    }

    @Override
    final boolean ownerClosed() {
        return state == WrapperState.CLOSED;
    }

    @Override
    final Statement statementOf() {
        return this;
    }

    /** One of its result sets was closed: if that closed the statement too, its pin ends. */
    @Override
    final void resultSetClosed(LogicalResultSet rs) {
        if (!handle.closeOnCompletion || state == WrapperState.CLOSED) {
            return;
        }
        boolean closedByDriver;
        try {
            closedByDriver = delegate.isClosed();
        } catch (SQLException e) {
            closedByDriver = false; // the next call on it will tell
        }
        if (closedByDriver) {
            state = WrapperState.CLOSED;
            handle.untrack(this);
        }
    }

    /**
     * Never on a connection its handle let go of: pgjdbc and MariaDB cancel by the connection's
     * backend, which may be running the next borrower's query now.
     */
    @Override
    public final void cancel() throws SQLException {
        touch();
        if (state == WrapperState.CLOSED) {
            throw new SQLException("pool '" + handle.pool.name + "': cannot cancel a closed statement", "HY010");
        }
        // A run of its own: the statement may end and be closed while the cancel is on its way
        // (MariaDB sends KILL QUERY over a connection of its own); the connection goes back only
        // once the cancel has returned, never to a borrower the cancel could still reach.
        handle.runStarted();
        try {
            PhysicalConnection p = handle.physical;
            if (p == null || p.binding() != handle.heldBinding()) {
                throw StatementChecks.outlived(handle);
            }
            delegate.cancel();
        } catch (SQLException e) {
            throw error(e);
        } finally {
            handle.runEnded();
        }
    }

    @Override
    public final boolean isClosed() throws SQLException {
        if (state == WrapperState.CLOSED || !handle.touchOwnerQuietly()) {
            return true;
        }
        try {
            return delegate.isClosed();
        } catch (SQLException e) {
            throw handle.error(e);
        }
    }

    @Override
    public final <T> T unwrap(Class<T> iface) throws SQLException {
        return SessionCalls.unwrap(handle, this, delegate, state == WrapperState.CLOSED, iface);
    }

    @Override
    public final boolean isWrapperFor(Class<?> iface) throws SQLException {
        return SessionCalls.isWrapperFor(handle, this, delegate, iface);
    }

    /** A getter returned a driver object that may still talk to the connection: it pins. */
    final <T> T live(T value) throws SQLException {
        return SessionCalls.live(handle, this, value, state == WrapperState.CLOSED);
    }

    /** {@link #live} for {@code getObject(…, type)}. */
    final <T> T liveAs(T value, Class<?> type) throws SQLException {
        return SessionCalls.liveAs(handle, this, value, type, state == WrapperState.CLOSED);
    }

    /** Before SQL text runs: a BEGIN or a SET pins at once, even if it then fails. */
    final SqlEffect sqlBefore(String sql) throws SQLException {
        return sqlBefore(sql, false);
    }

    /**
     * {@link #sqlBefore(String)} for {@code execute(sql, autoGeneratedKeys | columnIndexes | columnNames)}:
     * with the keys asked for, an INSERT hands its key back ({@link SqlEffect#keysAsked}).
     */
    final SqlEffect sqlBefore(String sql, boolean keysAsked) throws SQLException {
        handle.runStarted(); // first: the generated caller ends the run in its finally, whatever happens here
        SqlEffect classified = handle.classifier().classify(sql);
        SqlEffect e = applyBefore(StatementChecks.behindPooler(handle, keysAsked ? classified.keysAsked() : classified,
                sql, null), sql);
        Pins.plainSql(handle, sql); // the pin's name, if this statement's creation started it (the endpoint's pinStatement)
        return e;
    }

    /** Whether {@code autoGeneratedKeys} asks for the generated keys. */
    static boolean keysAsked(int autoGeneratedKeys) {
        return autoGeneratedKeys == Statement.RETURN_GENERATED_KEYS;
    }

    /** Whether the columns whose generated values to return name any. */
    static boolean keysAsked(int[] columnIndexes) {
        return columnIndexes != null && columnIndexes.length > 0;
    }

    /** Whether the columns whose generated values to return name any. */
    static boolean keysAsked(String[] columnNames) {
        return columnNames != null && columnNames.length > 0;
    }

    /**
     * Before a prepared statement runs, or a batch: its SQL was classified at prepare time. If the
     * catalog changed since (a function made volatile, a view replaced), that answer is not proof
     * any more: it runs as session state.
     */
    final SqlEffect sqlBefore() throws SQLException {
        handle.runStarted(); // first, as in sqlBefore(String)
        SqlEffect e = effect;
        if (catalog != handle.pool.classifier.generation() && !e.session) {
            e = SqlEffect.of(true, e.tx, e.values);
        }
        return applyBefore(e, sql);
    }

    private SqlEffect applyBefore(SqlEffect e, String sql) throws SQLException {
        if (state == WrapperState.CLOSED) {
            throw new SQLException("statement is closed", "HY010");
        }
        handle.beforeSql(e, sql);
        return e;
    }

    /**
     * {@code addBatch(String)}: as any SQL text, and behind a pooler, refused after a statement of
     * the batch that ends or begins a transaction ({@link TransactionIsolation#batch}).
     */
    final SqlEffect batchBefore(String sql) throws SQLException {
        SqlEffect e = sqlBefore(sql);
        if (batchBoundary) {
            TransactionIsolation.batch(handle, sql);
        }
        batchBoundary |= e.tx != SqlEffect.Tx.SAME;
        return e;
    }

    /**
     * {@code executeBatch()}: a prepared statement that ends or begins a transaction, run for each
     * of its parameter sets, is followed by itself: refused behind a pooler, as a text that does so is.
     */
    final SqlEffect batchRun() throws SQLException {
        batchBoundary = false; // the driver empties the batch
        SqlEffect e = sqlBefore();
        if (e.tx != SqlEffect.Tx.SAME && sql != null) {
            TransactionIsolation.batch(handle, sql);
        }
        return e;
    }

    /** {@code clearBatch()}. */
    final void batchCleared() {
        batchBoundary = false;
    }

    /** After SQL succeeded: a COMMIT or ROLLBACK unpins. */
    final void sqlAfter(SqlEffect e) {
        handle.afterSql(e);
    }

    /** In the generated caller's {@code finally}: the run {@link #sqlBefore} began has ended. */
    final void runEnded() {
        handle.runEnded();
    }
}
