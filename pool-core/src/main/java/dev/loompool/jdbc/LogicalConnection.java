package dev.loompool.jdbc;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.Executor;

/**
 * The {@link Connection} handle {@code getConnection()} returns. It binds a physical connection
 * at the first call that needs one, and gives it back as soon as nothing pins it (DESIGN.md §4).
 * Its own JDBC settings are replayed on every physical connection it binds.
 *
 * <p>Like any JDBC connection it is meant for one thread at a time; the pool's housekeeper touches
 * it only once that thread has ended or the handle has become unreachable.
 */
final class LogicalConnection extends HandleBasics implements LoomConnection {

    private static final VarHandle STATE = Fields.varHandle(MethodHandles.lookup(), "state", HandleState.class);

    final JdbcPool pool;
    /** Plain: the housekeeper reads only a bound handle's owner, after the bind's release-store. */
    private Thread owner = Thread.currentThread();
    /** Null while open, so the constructor writes no fence; accessed through STATE. */
    @SuppressWarnings("unused")
    private HandleState state;
    private PhysicalConnection physical;

    private boolean inTransaction;
    private boolean sessionState;
    private boolean framework;
    private boolean explicit;
    /** The connection broke inside a transaction: refuse to go on until the caller rolls back. */
    private boolean lostTransaction;

    LogicalConnection(JdbcPool pool) {
        this.pool = pool;
    }

    // ---- binding ---------------------------------------------------------------------------------

    @Override
    Connection bind() throws SQLException {
        PhysicalConnection p = physical;
        if (p != null) {
            return p.raw;
        }
        ensureOpen();
        if (lostTransaction) {
            throw new SQLException("pool '" + pool.name + "': the connection broke inside a transaction, "
                    + "which is lost; call rollback() before going on", "08003");
        }
        Thread me = Thread.currentThread();
        if (owner != me) {
            owner = me;
        }
        var lease = pool.acquire();
        p = lease.resource();
        if (own != null) {
            try {
                for (Attr a : own.marked) {
                    p.apply(own, a);
                }
            } catch (SQLException e) {
                p.broken = BrokenConnections.isBroken(e);
                if (p.broken) {
                    lease.invalidate();
                } else {
                    lease.close();
                }
                throw e;
            }
        }
        p.bind(this, lease, pool.leakThresholdNanos > 0 ? new Throwable("bound here") : null);
        physical = p;
        if (!p.current.autoCommit) { // the handle's choice or the pool's default
            inTransaction = true; // the driver opens a transaction with the first statement
            p.transactionDirty = true;
        }
        if (pool.bindObserver != null) {
            pool.bindObserver.bound(this);
        }
        return p.raw;
    }

    @Override
    void done() {
        if (physical != null && !pinned()) {
            unbind();
        }
    }

    private boolean pinned() {
        return inTransaction || openStatements() != 0 || sessionState || framework || explicit
                || pool.releaseMode == ReleaseMode.CLOSE;
    }

    private void unbind() {
        PhysicalConnection p = physical;
        physical = null;
        pool.release(p);
    }

    @Override
    SQLException error(SQLException e) {
        PhysicalConnection p = physical;
        if (p != null && BrokenConnections.isBroken(e)) {
            p.broken = true;
            lostTransaction = inTransaction;
            dropPins();
            unbind(); // destroyed; outside a transaction the next statement binds a fresh connection
        }
        return e;
    }

    @Override
    void ensureOpen() throws SQLException {
        HandleState s = (HandleState) STATE.getOpaque(this);
        if (s != null) {
            throw s == HandleState.RECLAIMED
                    ? new SQLException("connection was reclaimed: its owner thread ended", "08003")
                    : new SQLException("connection is closed", "08003");
        }
    }

    // ---- pins from statements and SQL --------------------------------------------------------

    private void dropPins() {
        closeTracked();
        inTransaction = false;
        sessionState = false;
        explicit = false;
    }

    void beforeSql(SqlEffect e) {
        PhysicalConnection p = physical;
        switch (e) {
            case BEGIN:
                inTransaction = true;
                p.transactionDirty = true;
                break;
            case AUTOCOMMIT_OFF:
                inTransaction = true;
                p.transactionDirty = true;
                sessionChanged();
                break;
            case AUTOCOMMIT_ON:
            case SESSION:
                sessionChanged();
                break;
            default:
                break;
        }
    }

    void afterSql(SqlEffect e) {
        if (e == SqlEffect.END || e == SqlEffect.AUTOCOMMIT_ON) {
            // Still inside one if the handle itself runs with autoCommit off: the driver starts the next.
            PhysicalConnection p = physical;
            if (p != null) {
                p.transactionDirty = false;
                inTransaction = !p.current.autoCommit; // the driver begins the next one by itself
            } else {
                inTransaction = false;
            }
        }
    }

    // ---- the wrappers the generated methods ask for ------------------------------------------------

    @Override
    Statement wrapStatement(Statement s) {
        LogicalStatement<Statement> wrapped = new LogicalStatement<>(this, s, SqlEffect.NONE);
        track(wrapped);
        return wrapped;
    }

    @Override
    PreparedStatement wrapPrepared(PreparedStatement s, String sql) {
        LogicalPreparedStatement<PreparedStatement> wrapped =
                new LogicalPreparedStatement<>(this, s, SqlClassifier.classify(sql));
        track(wrapped);
        return wrapped;
    }

    @Override
    CallableStatement wrapCallable(CallableStatement s, String sql) {
        LogicalCallableStatement wrapped = new LogicalCallableStatement(this, s, SqlClassifier.classify(sql));
        track(wrapped);
        return wrapped;
    }

    /** Metadata objects reach into their physical connection: they pin it until the handle closes. */
    @Override
    DatabaseMetaData wrapMetaData(DatabaseMetaData m) {
        explicit = true;
        return new LogicalDatabaseMetaData(this, m);
    }

    @Override
    <T> T pinned(T value) {
        explicit = true;
        return value;
    }

    // ---- transactions ------------------------------------------------------------------------------

    @Override
    public void commit() throws SQLException {
        ensureOpen();
        if (lostTransaction) {
            throw new SQLException("pool '" + pool.name + "': cannot commit, the transaction was lost when "
                    + "its connection broke; roll back", "08003");
        }
        endTransaction(true);
    }

    @Override
    public void rollback() throws SQLException {
        ensureOpen();
        lostTransaction = false;
        endTransaction(false);
    }

    private void endTransaction(boolean commit) throws SQLException {
        PhysicalConnection p = physical;
        if (p == null) {
            return; // nothing bound, so nothing to end
        }
        try {
            if (commit) {
                p.raw.commit();
            } else {
                p.raw.rollback();
            }
        } catch (SQLException e) {
            throw error(e);
        }
        p.transactionDirty = false;
        inTransaction = false;
        done();
    }

    @Override
    public void setAutoCommit(boolean autoCommit) throws SQLException {
        settings().autoCommit = autoCommit;
        changed(Attr.AUTO_COMMIT);
        if (autoCommit) {
            inTransaction = false;
            lostTransaction = false;
            done();
        } else if (physical != null) {
            inTransaction = true;
            physical.transactionDirty = true;
        }
    }

    @Override
    public boolean getAutoCommit() throws SQLException {
        return view(Attr.AUTO_COMMIT).autoCommit;
    }

    // ---- session state a setter leaves -------------------------------------------------------------

    @Override
    void sessionChanged() {
        sessionState = true;
        physical.sessionDirty = true;
    }

    @Override
    boolean isOpen() {
        return STATE.getOpaque(this) == null;
    }

    @Override
    public void close() {
        if (STATE.getOpaque(this) != null) {
            return;
        }
        STATE.setRelease(this, HandleState.CLOSED); // the owner's own call: no race to settle, no fence
        closeNow();
    }

    /** Called by the housekeeper once the owner thread has ended: returns the connection it held. */
    void reclaim() {
        if (STATE.compareAndSet(this, null, HandleState.RECLAIMED)) {
            closeNow();
        }
    }

    private void closeNow() {
        pool.openHandles.decrement();
        dropPins();
        framework = false;
        lostTransaction = false;
        if (physical != null) {
            unbind(); // the release check rolls back and resets what this handle changed
        }
    }

    @Override
    public boolean isClosed() {
        return !isOpen();
    }

    @Override
    public void abort(Executor executor) throws SQLException {
        if (!STATE.compareAndSet(this, null, HandleState.CLOSED)) {
            return;
        }
        PhysicalConnection p = physical;
        if (p != null) {
            p.broken = true; // an aborted connection is never reused
            p.raw.abort(executor);
        }
        closeNow();
    }

    // ---- LoomConnection -----------------------------------------------------------------------------

    @Override
    public void pin() {
        explicit = true;
    }

    @Override
    public void unpin() {
        explicit = false;
        done();
    }

    @Override
    public void beginFrameworkTransaction() {
        framework = true;
    }

    @Override
    public void endFrameworkTransaction() {
        framework = false;
        done();
    }

    @Override
    public Set<PinReason> pinReasons() {
        EnumSet<PinReason> reasons = EnumSet.noneOf(PinReason.class);
        if (physical != null) {
            addIf(reasons, inTransaction, PinReason.TRANSACTION);
            addIf(reasons, openStatements() != 0, PinReason.STATEMENT);
            addIf(reasons, sessionState, PinReason.SESSION_STATE);
            addIf(reasons, framework, PinReason.FRAMEWORK_TRANSACTION);
            addIf(reasons, explicit, PinReason.EXPLICIT);
            addIf(reasons, pool.releaseMode == ReleaseMode.CLOSE, PinReason.RELEASE_MODE);
        }
        return reasons;
    }

    private static void addIf(EnumSet<PinReason> reasons, boolean pinned, PinReason reason) {
        if (pinned) {
            reasons.add(reason);
        }
    }

    @Override
    PhysicalConnection physical() {
        return physical;
    }

    @Override
    Settings learnedDefaults() {
        return pool.factory.learnedDefaults();
    }

    @Override
    public boolean isBound() {
        return physical != null;
    }

    @Override
    public Thread ownerThread() {
        return owner;
    }

    @Override
    public String toString() {
        return "LoomConnection[pool=" + pool.name + ", " + (isOpen() ? "OPEN" : STATE.getOpaque(this)) + ", bound=" + (physical != null) + "]";
    }
}
