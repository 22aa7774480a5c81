package dev.loompool.jdbc;

import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumSet;
import java.util.Set;

/**
 * The {@link Connection} handle {@code getConnection()} returns. It binds a physical connection
 * at the first call that needs one, and gives it back as soon as nothing pins it (DESIGN.md §4).
 * Its own JDBC settings are replayed on every physical connection it binds.
 *
 * <p>Like any JDBC connection it is meant for one thread at a time, but it may pass from thread
 * to thread; its life (open, closed, reclaimed, counted, watched) is {@link HandleLife}'s.
 */
final class LogicalConnection extends HandleLife implements LoomConnection {

    /** What keeps the physical connection, and the rules for it: the pin table in one place. */
    final Pins pins = new Pins();
    /** The connection broke inside a transaction: refuse to go on until the caller rolls back. */
    private boolean lostTransaction;
    /**
     * A statement asked the driver to close it with its last result set, which ends its pin:
     * result sets look then (a flag here, not in {@link Pins}, where it would cost 8 bytes a handle).
     */
    boolean closeOnCompletion;

    LogicalConnection(JdbcPool pool) {
        super(pool);
    }

    // ---- binding ---------------------------------------------------------------------------------

    @Override
    Connection bind() throws SQLException {
        PhysicalConnection p = physical;
        if (p != null) {
            touchOwner();
            return p.raw;
        }
        ensureOpen();
        if (lostTransaction) {
            throw new SQLException("pool '" + pool.name + "': the connection broke inside a transaction, "
                    + "which is lost; call rollback() before going on", "08003");
        }
        var lease = pool.acquire();
        p = lease.resource();
        if (own != null) {
            try {
                for (Attr a : own.marked) {
                    p.apply(own, a);
                }
            } catch (SQLException e) {
                if (BrokenConnections.lost(p.raw, e, pool.validationSeconds)) {
                    p.markBroken(); // retired on the way back
                }
                lease.close();
                throw e;
            }
        }
        countFromFirstUse();
        Object previous = p.bind(this, lease, pool.leakThresholdNanos > 0 ? new Throwable("bound here") : null);
        physical = p;
        pins.bound(p);
        if (previous != this && previous instanceof LogicalConnection left) {
            left.watchIfLeftOpen();
        }
        if (pool.bindObserver != null) {
            pool.bindObserver.bound(this);
        }
        return p.raw;
    }

    @Override
    void done() {
        PhysicalConnection p = physical;
        if (p != null && !pins.hold(p, pool.releaseMode)) {
            unbind();
        }
    }

    @Override
    SQLException error(SQLException e) {
        PhysicalConnection p = physical;
        if (p != null && BrokenConnections.lost(p.raw, e, pool.validationSeconds)) {
            p.markBroken();
            lostTransaction = pins.inTransaction(p);
            pins.dropForConnectionLoss();
            unbind(); // destroyed; outside a transaction the next statement binds a fresh connection
        }
        return e;
    }

    // ---- pins from statements and SQL --------------------------------------------------------

    /** Before SQL runs; the statement's call has noted its thread as the user already. */
    void beforeSql(SqlEffect e) {
        pins.beforeSql(physical, e);
    }

    void afterSql(SqlEffect e) {
        PhysicalConnection p = physical;
        if (p != null) {
            pins.afterSql(p, e);
        }
    }

    /** The classifier of the pool's database (its dialect is known once a connection was made). */
    SqlClassifier classifier() {
        return pool.classifier;
    }

    /** A statement or metadata result set was opened: it pins until closed. */
    void track(Tracked t) {
        pins.track(t);
    }

    /** It was closed; the connection goes back if nothing else pins it. */
    void untrack(Tracked t) {
        if (pins.untrack(t)) { // else already dropped with a broken connection
            done();
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
                new LogicalPreparedStatement<>(this, s, classifier().classify(sql));
        track(wrapped);
        return wrapped;
    }

    @Override
    CallableStatement wrapCallable(CallableStatement s, String sql) {
        LogicalCallableStatement wrapped = new LogicalCallableStatement(this, s, classifier().classify(sql));
        track(wrapped);
        return wrapped;
    }

    /**
     * Metadata binds for each call, like the handle: it pins nothing itself, only the result sets
     * it returns do, until they are closed.
     */
    @Override
    public DatabaseMetaData getMetaData() throws SQLException {
        ensureOpen();
        return new LogicalDatabaseMetaData(this);
    }

    @Override
    DatabaseMetaData wrapMetaData(DatabaseMetaData m) {
        return new LogicalDatabaseMetaData(this);
    }

    @Override
    <T> T pinned(T value) {
        pins.add(PinReason.EXPLICIT);
        physical.markLendingDriverObjects();
        return value;
    }

    /**
     * The driver's own object is handed out: SQL and settings through it bypass the pool, so the
     * connection is pinned until close and then closed, not reused.
     */
    @Override
    <T> T exposed(T value) {
        pins.add(PinReason.EXPLICIT);
        physical.markExposed();
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
        pins.jdbcTransactionEnded(p, p.current.autoCommit);
        done();
    }

    @Override
    public void setAutoCommit(boolean autoCommit) throws SQLException {
        if (autoCommit && lostTransaction) { // switching autocommit on would commit it: it cannot
            throw new SQLException("pool '" + pool.name + "': cannot commit, the transaction was lost when "
                    + "its connection broke; roll back", "08003");
        }
        settings().autoCommit = autoCommit;
        PhysicalConnection p = physical;
        boolean before = p == null || p.current.autoCommit;
        changed(Attr.AUTO_COMMIT); // switching it on commits, as the driver does
        if (p == null || physical != p) {
            return;
        }
        if (autoCommit) {
            pins.jdbcTransactionEnded(p, before);
            done();
        } else {
            pins.autoCommitOff(p);
        }
    }

    @Override
    public boolean getAutoCommit() throws SQLException {
        return view(Attr.AUTO_COMMIT).autoCommit;
    }

    // ---- session state a setter leaves -------------------------------------------------------------

    @Override
    void sessionChanged() {
        pins.add(PinReason.SESSION_STATE);
        physical.sessionDirty = true;
    }

    // ---- LoomConnection -----------------------------------------------------------------------------

    // A reclaimed handle has no pins left to change (its next JDBC call says why).

    @Override
    public void pin() {
        if (touchOwnerQuietly()) {
            pins.add(PinReason.EXPLICIT);
        }
    }

    @Override
    public void unpin() {
        if (touchOwnerQuietly()) {
            pins.remove(PinReason.EXPLICIT);
            done();
        }
    }

    @Override
    public void beginFrameworkTransaction() {
        if (touchOwnerQuietly()) {
            pins.add(PinReason.FRAMEWORK_TRANSACTION);
        }
    }

    @Override
    public void endFrameworkTransaction() {
        if (touchOwnerQuietly()) {
            pins.remove(PinReason.FRAMEWORK_TRANSACTION);
            done();
        }
    }

    /** Whether statements or metadata result sets are open: another thread may be reading them. */
    boolean holdsStatements() {
        return pins.statements() > 0;
    }

    @Override
    public Set<PinReason> pinReasons() {
        PhysicalConnection p = physical;
        return p == null ? EnumSet.noneOf(PinReason.class) : pins.reasons(p, pool.releaseMode);
    }

    @Override
    Settings learnedDefaults() {
        return pool.factory.learnedDefaults();
    }

    /** Its statements close and its pins end: the handle is ending. */
    @Override
    void dropPins() {
        pins.clear();
        closeOnCompletion = false;
        lostTransaction = false;
    }

    @Override
    public String toString() {
        return "LoomConnection[pool=" + pool.name + ", " + (isOpen() ? "OPEN" : ended()) + ", bound="
                + (physical != null) + "]";
    }
}
