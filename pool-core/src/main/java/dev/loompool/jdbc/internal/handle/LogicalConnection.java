package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.internal.physical.JdbcPool;
import dev.loompool.jdbc.internal.physical.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import dev.loompool.jdbc.internal.driver.SessionAttribute;
import dev.loompool.jdbc.internal.driver.BrokenConnections;
import dev.loompool.jdbc.internal.driver.Settings;
import dev.loompool.jdbc.internal.sql.SqlClassifier;
import dev.loompool.jdbc.internal.sql.SqlEffect;
import dev.loompool.jdbc.LoomConnection;
import dev.loompool.jdbc.PinReason;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLClientInfoException;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;

/**
 * The {@link Connection} handle {@code getConnection()} returns. It binds a physical connection
 * at the first call that needs one, and gives it back as soon as nothing pins it (DESIGN.md §4).
 * Its own JDBC settings are replayed on every physical connection it binds.
 *
 * <p>It may pass from thread to thread and be used by several at once, as the driver's own
 * connection may; its life (open, closed, reclaimed, counted, watched), its runs and its lock are
 * {@link HandleLife}'s.
 *
 * <p>This class holds every rule of the handle; {@code DelegatingConnection}, generated at build
 * time (the codegen module's DelegateGenerator), is the final class that forwards the other
 * {@link Connection} methods to the bound connection: {@code bind()}, the call, {@code done()}.
 */
abstract class LogicalConnection extends HandleLife implements Connection, LoomConnection {

    /** The settings this handle chose; null until it chooses one (the common case costs nothing). */
    Settings own;
    /** {@link #settingsTurn}, for {@link SettingsTurn}: declared here, where native images register the field. */
    static final VarHandle SETTINGS_TURN = VarHandles.varHandle(MethodHandles.lookup(), "settingsTurn", Object.class);

    /** The thread whose turn it is in the handle's settings ({@link SettingsTurn}), or null. */
    @SuppressWarnings("unused") // accessed through SETTINGS_TURN
    private Object settingsTurn;
    /**
     * How many choices of settings the handle has made ({@code HandleSettings.changed}), read by a
     * bind before its replay and after it published the binding: a setter on another thread that
     * chose in between is applied by the bind.
     */
    volatile int choices;
    /** The last acquire of this handle that failed, for the threads of the handle that waited for it; null if none. */
    volatile AcquireFailure acquireFailure;

    LogicalConnection(JdbcPool pool) {
        super(pool);
    }

    // ---- binding ---------------------------------------------------------------------------------

    /** The physical connection, bound now if it was not; the calling thread becomes the user. */
    final Connection bind() throws SQLException {
        PhysicalConnection p = physical;
        if (p != null) {
            touchOwner();
            p.ranOn(Thread.currentThread()); // a close on another thread waits for what runs on it
            return p.raw;
        }
        ensureOpen();
        if (lostTransaction) {
            throw new SQLException("pool '" + pool.name + "': the connection broke inside a transaction, "
                    + "which is lost; call rollback() before going on", "08003");
        }
        // Another thread of this handle may find it unbound too: one of them acquires and binds, and
        // the other waits for that and goes on with its connection, as on the plain driver. It never
        // waits in the pool itself, where on a pool of one it would wait for the connection its own
        // handle holds by then, until its acquire timed out.
        if (!claimPublish()) {
            awaitOtherBinder();
            return bind();
        }
        long waitedForTurn = SettingsTurn.waitedFrom(this);
        if (waitedForTurn != 0 && acquireFailedSince(waitedForTurn)) {
            published(); // its turn came after another thread of the handle failed to get a connection: it fails with it
            throw AcquireFailure.shared(this);
        }
        if (boundNow() != null) { // bound by another thread between the first look and the claim
            published();
            return bind();
        }
        Object previous;
        long b;
        boolean firstCount;
        int seen;
        try {
            try {
                p = pool.replicas() != null && HandleSettings.readOnlyWork(this) ? pool.replicas().acquire(pool) : pool.acquire();
            } catch (SQLException e) {
                acquireFailure = new AcquireFailure(e, System.nanoTime()); // the threads that waited for this acquire fail with it
                throw e;
            }
            if (!isOpen()) { // a watchdog's abort or a close on another thread ended it while this call waited
                p.home().putBack(p);
                throw new SQLException("pool '" + pool.name + "': the connection was closed while this call waited for "
                        + "a physical connection (" + p.home().pool.stats() + ")", "08003");
            }
            seen = choices;
            replaySettings(p);
            previous = p.bind(this, pool.leakThresholdNanos() > 0 ? new Throwable("bound here") : null);
            b = p.boundAs();
            firstCount = countFromFirstUse(p); // before the binding is published: a close that sees it sees the count
            hold(p, b);
        } finally {
            published();
        }
        if (endedWhileBinding(p, b, firstCount)) { // a close on another thread during the settings' replay
            throw new SQLException("pool '" + pool.name + "': the connection was closed while this call bound a "
                    + "physical connection (" + p.home().pool.stats() + ")", "08003");
        }
        if (choices != seen) { // read after the fence of endedWhileBinding, as a setter reads the binding after its own
            HandleSettings.chosenWhileBinding(this);
        }
        Pins.bound(this, p);
        if (previous != this && previous instanceof LogicalConnection left) {
            left.watchIfLeftOpen();
        }
        if (pool.bindObserver != null) {
            pool.bindObserver.bound(this);
        }
        return p.raw;
    }

    /**
     * Waits while another thread of this handle acquires and binds: then its connection is bound,
     * or none is. Never longer than acquireTimeout; ended by an interrupt or the handle's end; and
     * where that acquire failed meanwhile, this thread fails with it instead of waiting a timeout
     * of its own (eight threads of one handle all fail after one acquireTimeout, as eight
     * waiters of HikariCP do).
     */
    private void awaitOtherBinder() throws SQLException {
        long from = System.nanoTime();
        long deadline = from + pool.acquireTimeoutNanos();
        long park = 10_000;
        for (int spins = 0; publishing(); spins++) {
            if (spins < 100) {
                Thread.onSpinWait();
                continue;
            }
            if (Thread.currentThread().isInterrupted()) { // the flag stays set, as the pool's own wait leaves it
                throw new SQLException("pool '" + pool.name + "': interrupted while another thread of this connection "
                        + "waited for a physical connection");
            }
            if (!isOpen()) {
                ensureOpen(); // closed or aborted meanwhile: says so
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new java.sql.SQLTransientConnectionException("pool '" + pool.name + "': no connection available "
                        + "within " + pool.acquireTimeoutText() + " (" + pool.pool.stats() + "); another thread of this "
                        + "connection waited for one all that time");
            }
            LockSupport.parkNanos(Math.min(park, left));
            park = Math.min(park * 2, 1_000_000);
        }
        if (acquireFailedSince(from)) {
            throw AcquireFailure.shared(this);
        }
    }

    /** Whether an acquire of this handle failed at or after {@code since} (nanoTime) and nothing is bound. */
    private boolean acquireFailedSince(long since) {
        AcquireFailure f = acquireFailure;
        return f != null && f.at() - since >= 0 && boundNow() == null;
    }

    /**
     * The schema the handle chose, first: before its autocommit off, and committed where the
     * connection's autocommit is off already (the pool's default), so that it is not a SET inside
     * the handle's next transaction, which its rollback would undo (pgjdbc) although the handle
     * chose it before that transaction began.
     */
    private void replaySchema(PhysicalConnection p) throws SQLException {
        p.apply(own, SessionAttribute.SCHEMA);
        if (p.schemaUncertain()) {
            p.raw.commit(); // nothing of the handle's has run on this binding yet: only the SET is committed
            p.schemaSettled();
        }
    }

    /** The handle's own settings, replayed on {@code p} before it is bound; on failure it goes back, unbound. */
    private void replaySettings(PhysicalConnection p) throws SQLException {
        if (own == null) {
            return;
        }
        try {
            if (own.marked.contains(SessionAttribute.SCHEMA)) {
                replaySchema(p);
            }
            for (SessionAttribute a : own.marked) {
                if (a != SessionAttribute.SCHEMA && (a != SessionAttribute.ISOLATION || !pool.transactionPooler)) {
                    p.apply(own, a); // isolation behind a pooler is sent per transaction: TransactionIsolation
                }
            }
        } catch (SQLException e) {
            if (BrokenConnections.lost(p.raw, e, pool.validationSeconds())) {
                p.markBroken(); // retired on the way back
            }
            p.home().putBack(p);
            throw e;
        } catch (RuntimeException e) { // the driver's own bug: its answer, as without the pool, and the connection goes back
            p.home().putBack(p);
            throw e;
        }
    }

    /**
     * For a run already counted ({@link #runStarted}): the connection bound now, checked after the
     * run counted itself. If none is, it binds one outside the run and counts the run again: a
     * bind may wait for a connection, which a run must not do, since a release on another thread
     * waits for the handle's runs before it gives its connection back (a pool of one would wait on
     * itself until the acquire timed out).
     */
    final Connection bindInRun() throws SQLException {
        for (;;) {
            PhysicalConnection p = physical;
            if (p != null && p.binding() == heldBinding()) {
                touchOwner();
                p.ranOn(Thread.currentThread());
                return p.raw;
            }
            if (p != null) {
                ensureOpen(); // the reclaimer or the pool's close took it from under the handle: that ends it here
            }
            runEnded();
            try {
                bind();
            } finally {
                runStarted();
            }
        }
    }

    /**
     * Binds for a call that changes the server's session or transaction (a savepoint): the call is
     * counted as under way on the connection ({@link PhysicalConnection#enter}) until the caller's
     * {@code leave()}, so that a close on another thread that overtakes it retires the connection
     * rather than lend it while the call may still land in the next borrower's transaction.
     */
    final PhysicalConnection enterCall() throws SQLException {
        bindInRun(); // in the caller's run
        PhysicalConnection p = physical;
        if (p == null || !p.enter(heldBinding())) { // a close or the reclaimer overtook this call
            throw TransactionCalls.overtaken(this);
        }
        p.noteSavepoint(); // a savepoint call (or a sharding key): see Pins.afterError
        return p;
    }

    /**
     * After every bound call: the handle releases the physical connection if nothing pins it and
     * no call runs on it, on any thread; a call still running makes the release when it ends
     * ({@link #runEnded}). Decided under the handle's lock, where pins change and runs are
     * counted, so a pin another thread starts at the same moment either keeps the connection or
     * finds the handle unbound and binds again: the connection never goes with a pin in force.
     */
    final void done() {
        PhysicalConnection p = physical;
        if (p == null || Pins.hold(this, p, pool.releaseMode)) {
            return; // the common case within a transaction or a statement: reads only
        }
        if (p.schemaUncertain() && !schemaBeforeRelease(p)) {
            return; // kept as session state, or the connection was lost on the way
        }
        boolean release;
        lockState();
        try {
            // again under the lock: another thread of the handle may have pinned meanwhile
            release = physical == p && !Pins.hold(this, p, pool.releaseMode) && releaseLocked(p);
        } finally {
            unlockState();
        }
        if (release) {
            p.home().giveBack(p);
        }
    }

    /** {@link HandleSettings#schemaBeforeRelease} as a run: it asks the driver, outside the lock. */
    private boolean schemaBeforeRelease(PhysicalConnection p) {
        runStarted();
        try {
            return HandleSettings.schemaBeforeRelease(this, p);
        } finally {
            runEnded(); // a release another thread decided meanwhile is made here; this one then finds p gone
        }
    }

    /** Every SQLException from the driver passes here: a lost connection is dropped. Returns what to throw. */
    final SQLException error(SQLException e) {
        PhysicalConnection p = physical;
        if (p != null) {
            p.driverError(); // MariaDB: the error packet carried no transaction state
        }
        if (p != null && BrokenConnections.lost(p.raw, e, pool.validationSeconds())) {
            p.markBroken();
            lostTransaction = Pins.lostWork(this, p);
            boolean sessionLost = Pins.lostSession(this, p);
            Pins.dropForConnectionLoss(this);
            unbind(); // destroyed; outside a transaction the next statement binds a fresh connection
            if (sessionLost) {
                HandleEnds.sessionLost(this, e); // unless the handle relied on that session: then it ends
            }
        } else if (p != null) {
            Pins.afterError(this, p);
        }
        return e;
    }

    // ---- pins from statements and SQL --------------------------------------------------------

    /**
     * Before SQL runs; the statement's call has noted its thread as the user already. A statement
     * that outlived its binding (made while another thread closed the handle) must not run on the
     * connection, which may be the next borrower's now: two loads, no write.
     */
    void beforeSql(SqlEffect e, String sql) throws SQLException {
        PhysicalConnection p = physical;
        if (p == null || p.binding() != heldBinding()) {
            throw StatementChecks.outlived(this);
        }
        if (pool.transactionPooler) {
            TransactionIsolation.beforeSql(this, p, e, sql); // the pins, and the isolation sent per transaction
        } else {
            Pins.beforeSql(this, p, e, sql);
        }
    }

    void afterSql(SqlEffect e) {
        PhysicalConnection p = physical;
        if (p != null) {
            Pins.afterSql(this, p, e);
        }
    }

    /** The classifier of the pool's database (its dialect is known once a connection was made). */
    SqlClassifier classifier() {
        return pool.classifier;
    }

    /** A statement or metadata result set was opened: it pins until closed. */
    void track(Tracked t, String by) {
        Pins.track(this, t, by);
    }

    /**
     * It was closed, on whichever thread: the connection goes back if nothing else pins it, at once
     * or, if a statement still runs on another thread, when that run ends.
     */
    void untrack(Tracked t) {
        PhysicalConnection p;
        boolean untracked;
        boolean release = false;
        lockState();
        try {
            untracked = Pins.untrackLocked(this, t); // else already dropped with a broken connection
            p = physical;
            if (untracked && p != null && !p.schemaUncertain() && !p.stateUnconfirmed()
                    && !Pins.hold(this, p, pool.releaseMode)) {
                release = releaseLocked(p); // the common close: the untrack and the release in one step of the lock
            }
        } finally {
            unlockState();
        }
        if (release) {
            p.home().giveBack(p);
        } else if (untracked && p != null && (p.schemaUncertain() || p.stateUnconfirmed())) {
            done(); // it asks the driver first, outside the lock
        }
    }

    /** A statement's run ends ({@link #runStarted}): the last one makes a release asked for meanwhile. */
    final void runEnded() {
        if (endRun()) {
            done();
        }
    }

    // ---- the wrappers the generated methods ask for ------------------------------------------------
    // The generated caller makes the driver's statement in a run of the handle and hands it here,
    // still in that run. Each wrapper tracks the statement it returns, which pins the connection
    // until it is closed, and ends the run in the same step of the handle's lock
    // (Pins.trackEndingRun); a refusal before that ends the run through failedInRun.

    /**
     * The driver failed to make what the run was for: its error, in the run, then the run ends
     * and the connection goes if nothing pins it. Returns what to throw.
     */
    final SQLException failedInRun(SQLException e) {
        SQLException thrown = error(e);
        runEnded();
        done();
        return thrown;
    }

    /** {@link #failedInRun} for an unchecked throwable: the run ends, the connection goes if nothing pins it. */
    final void abandonedRun() {
        runEnded();
        done();
    }

    final Statement wrapStatement(Statement s) throws SQLException {
        DelegatingStatement wrapped = new DelegatingStatement(this, s, SqlEffect.NONE);
        Pins.trackEndingRun(this, wrapped, Pins.CREATE_STATEMENT);
        StatementChecks.refuseIfLetGo(this, wrapped);
        return wrapped;
    }

    final PreparedStatement wrapPrepared(PreparedStatement s, String sql) throws SQLException {
        // Classified before the wrapper is allocated, not as a constructor argument (which runs after
        // the allocation): then nothing that may allocate comes between the allocation and the
        // constructor's stores, and the JIT writes them without GC barriers. On every prepare (P1).
        return prepared(s, sql, checked(sql, s, false));
    }

    /** {@code prepareStatement(sql, autoGeneratedKeys | columnIndexes | columnNames)}: an INSERT hands its key back. */
    final PreparedStatement wrapPrepared(PreparedStatement s, String sql, boolean keysAsked) throws SQLException {
        return prepared(s, sql, checked(sql, s, keysAsked));
    }

    /**
     * What {@code sql} does, classified and checked ({@link StatementChecks#behindPooler}) in the
     * run: a refusal (the driver's statement closed), or any failure, ends it.
     */
    private SqlEffect checked(String sql, Statement s, boolean keysAsked) throws SQLException {
        try {
            SqlEffect effect = classifier().classify(sql);
            return StatementChecks.behindPooler(this, keysAsked ? effect.keysAsked() : effect, sql, s);
        } catch (SQLException e) {
            throw failedInRun(e);
        } catch (RuntimeException | Error e) {
            abandonedRun();
            throw e;
        }
    }

    private PreparedStatement prepared(PreparedStatement s, String sql, SqlEffect effect) throws SQLException {
        DelegatingPreparedStatement wrapped = new DelegatingPreparedStatement(this, s, effect);
        if (effect.values != 0 || effect.tx != SqlEffect.Tx.SAME) {
            wrapped.sql = sql; // for the message should a read be refused; read behind a pooler (TransactionIsolation)
        }
        Pins.trackEndingRun(this, wrapped, sql);
        StatementChecks.refuseIfLetGo(this, wrapped);
        return wrapped;
    }

    final CallableStatement wrapCallable(CallableStatement s, String sql) throws SQLException {
        SqlEffect effect = checked(sql, s, false); // before the allocation, as in wrapPrepared
        DelegatingCallableStatement wrapped = new DelegatingCallableStatement(this, s, effect);
        if (effect.values != 0 || effect.tx != SqlEffect.Tx.SAME) {
            wrapped.sql = sql;
        }
        Pins.trackEndingRun(this, wrapped, sql);
        StatementChecks.refuseIfLetGo(this, wrapped);
        return wrapped;
    }

    /**
     * Metadata binds for each call, like the handle: it pins nothing itself, only the result sets
     * it returns do, until they are closed.
     */
    @Override
    public final DatabaseMetaData getMetaData() throws SQLException {
        ensureOpen();
        return new DelegatingDatabaseMetaData(this);
    }

    /** A driver object that may still talk to the connection is handed out: {@link SessionCalls#pinned}. */
    final <T> T pinned(T value) throws SQLException {
        return SessionCalls.pinned(this, value);
    }

    // ---- transactions ------------------------------------------------------------------------------

    @Override
    public final void commit() throws SQLException {
        boolean turn = SettingsTurn.take(this);
        try {
            TransactionCalls.commit(this);
        } finally {
            SettingsTurn.give(this, turn);
        }
    }

    @Override
    public final void rollback() throws SQLException {
        boolean turn = SettingsTurn.take(this);
        try {
            TransactionCalls.rollback(this);
        } finally {
            SettingsTurn.give(this, turn);
        }
    }

    @Override
    public final void setAutoCommit(boolean autoCommit) throws SQLException {
        boolean turn = SettingsTurn.take(this);
        try {
            TransactionCalls.setAutoCommit(this, autoCommit);
        } finally {
            SettingsTurn.give(this, turn);
        }
    }

    @Override
    public final boolean getAutoCommit() throws SQLException {
        boolean turn = SettingsTurn.take(this);
        try {
            return TransactionCalls.getAutoCommit(this);
        } finally {
            SettingsTurn.give(this, turn);
        }
    }

    // ---- LoomConnection -----------------------------------------------------------------------------

    // A reclaimed handle has no pins left to change (its next JDBC call says why): each call below
    // notes its thread first, and does nothing if the reclaimer took the handle.

    @Override
    public final void pin() {
        if (touchOwnerQuietly()) {
            Pins.add(this, PinReason.EXPLICIT, Pins.PIN);
        }
    }

    /** Ends the pin of {@link #pin()} only: a driver object lent out keeps its pin until close. */
    @Override
    public final void unpin() {
        if (touchOwnerQuietly()) {
            PhysicalConnection p = physical;
            if (p == null || !p.state().lent()) {
                Pins.remove(this, PinReason.EXPLICIT);
            }
            done();
        }
    }

    @Override
    public final void beginFrameworkTransaction() {
        if (touchOwnerQuietly()) {
            Pins.add(this, PinReason.FRAMEWORK_TRANSACTION, Pins.FRAMEWORK);
        }
    }

    @Override
    public final void endFrameworkTransaction() {
        if (touchOwnerQuietly()) {
            Pins.remove(this, PinReason.FRAMEWORK_TRANSACTION);
            done();
        }
    }

    /** How many statements and metadata result sets are open. */
    int openStatements() {
        return Pins.statements(this);
    }

    @Override
    public final Set<PinReason> pinReasons() {
        PhysicalConnection p = physical;
        return p == null ? EnumSet.noneOf(PinReason.class) : Pins.reasons(this, p, pool.releaseMode);
    }

    // ---- settings: remembered, applied if bound, replayed on every later binding ------------------

    @Override
    public final void setTransactionIsolation(int level) throws SQLException {
        boolean turn = SettingsTurn.take(this);
        try {
            HandleSettings.setTransactionIsolation(this, level);
        } finally {
            SettingsTurn.give(this, turn);
        }
    }

    @Override
    public final int getTransactionIsolation() throws SQLException {
        boolean turn = SettingsTurn.take(this);
        try {
            return TransactionIsolation.get(this);
        } finally {
            SettingsTurn.give(this, turn);
        }
    }

    @Override
    public final void setReadOnly(boolean readOnly) throws SQLException {
        boolean turn = SettingsTurn.take(this);
        try {
            HandleSettings.setReadOnly(this, readOnly);
        } finally {
            SettingsTurn.give(this, turn);
        }
    }

    @Override
    public final boolean isReadOnly() throws SQLException {
        boolean turn = SettingsTurn.take(this);
        try {
            return HandleSettings.view(this, SessionAttribute.READ_ONLY).readOnly();
        } finally {
            SettingsTurn.give(this, turn);
        }
    }

    @Override
    public final void setCatalog(String catalog) throws SQLException {
        boolean turn = SettingsTurn.take(this);
        try {
            HandleSettings.setCatalog(this, catalog);
        } finally {
            SettingsTurn.give(this, turn);
        }
    }

    @Override
    public final String getCatalog() throws SQLException {
        boolean turn = SettingsTurn.take(this);
        try {
            return HandleSettings.view(this, SessionAttribute.CATALOG).catalog();
        } finally {
            SettingsTurn.give(this, turn);
        }
    }

    @Override
    public final void setSchema(String schema) throws SQLException {
        boolean turn = SettingsTurn.take(this);
        try {
            HandleSettings.setSchema(this, schema);
        } finally {
            SettingsTurn.give(this, turn);
        }
    }

    @Override
    public final String getSchema() throws SQLException {
        boolean turn = SettingsTurn.take(this);
        try {
            return HandleSettings.view(this, SessionAttribute.SCHEMA).schema();
        } finally {
            SettingsTurn.give(this, turn);
        }
    }

    @Override
    public final void setHoldability(int holdability) throws SQLException {
        boolean turn = SettingsTurn.take(this);
        try {
            HandleSettings.setHoldability(this, holdability);
        } finally {
            SettingsTurn.give(this, turn);
        }
    }

    @Override
    public final int getHoldability() throws SQLException {
        boolean turn = SettingsTurn.take(this);
        try {
            return HandleSettings.view(this, SessionAttribute.HOLDABILITY).holdability();
        } finally {
            SettingsTurn.give(this, turn);
        }
    }

    @Override
    public final void setNetworkTimeout(Executor executor, int milliseconds) throws SQLException {
        boolean turn = SettingsTurn.take(this);
        try {
            HandleSettings.setNetworkTimeout(this, executor, milliseconds);
        } finally {
            SettingsTurn.give(this, turn);
        }
    }

    @Override
    public final int getNetworkTimeout() throws SQLException {
        boolean turn = SettingsTurn.take(this);
        try {
            return HandleSettings.view(this, SessionAttribute.NETWORK_TIMEOUT).networkTimeout();
        } finally {
            SettingsTurn.give(this, turn);
        }
    }

    // ---- calls that need a physical connection for a moment, or leave state on its session --------

    @Override
    public final SQLWarning getWarnings() throws SQLException {
        return SessionCalls.getWarnings(this);
    }

    @Override
    public final void clearWarnings() throws SQLException {
        SessionCalls.clearWarnings(this);
    }

    @Override
    public final boolean isValid(int timeout) throws SQLException {
        return SessionCalls.isValid(this, timeout);
    }

    /** The pool brackets requests itself; a caller's hints change nothing. */
    @Override
    public final void beginRequest() {
    }

    @Override
    public final void endRequest() {
    }

    @Override
    public final <T> T unwrap(Class<T> iface) throws SQLException {
        return SessionCalls.unwrap(this, iface);
    }

    @Override
    public final boolean isWrapperFor(Class<?> iface) throws SQLException {
        return SessionCalls.isWrapperFor(this, iface);
    }

    @Override
    public final void setTypeMap(Map<String, Class<?>> map) throws SQLException {
        SessionCalls.setTypeMap(this, map);
    }

    @Override
    public final void setClientInfo(String name, String value) throws SQLClientInfoException {
        SessionCalls.clientInfo(this, c -> c.setClientInfo(name, value));
    }

    @Override
    public final void setClientInfo(Properties properties) throws SQLClientInfoException {
        SessionCalls.clientInfo(this, c -> c.setClientInfo(properties));
    }

    @Override
    public String toString() {
        return "LoomConnection[pool=" + pool.name + ", " + (isOpen() ? "OPEN" : ended()) + ", bound="
                + (physical != null) + "]";
    }
}
