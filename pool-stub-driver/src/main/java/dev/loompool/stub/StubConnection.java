package dev.loompool.stub;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/**
 * One physical connection of a {@link StubDatabase}. It keeps its settings and answers what pools
 * ask of it; every method it does not spell out is its generated base's: nothing, null, zero or
 * false.
 *
 * <p>Strict (the default, for the pool's tests): like pgjdbc where the pool's logic depends on it.
 * It follows the server's transaction state from the SQL it runs and the autocommit mode (and tells
 * it through {@link Wire} unless the database hides it), refuses {@code commit()} and
 * {@code rollback()} in autocommit mode, and every call but {@code close}, {@code isClosed} and
 * {@code isValid} once closed. It logs the SQL it ran, counts the calls of each method it
 * implements and its open statements and result sets, and fails on command.
 *
 * <p>Cheap ({@link StubDatabase#cheap}, for the benchmarks): it keeps its settings and autocommit
 * mode but checks, logs and counts nothing ({@code commit()} and {@code rollback()} do nothing), and
 * a query parks its thread for the database's query time. What a benchmark measures is then the
 * pool, with one small statement and result set per query as its only cost.
 */
public class StubConnection extends NoOpConnection {

    /** pgjdbc's shape: a connection type with {@code getTransactionState()}, an enum with IDLE. */
    public interface Wire {
        TransactionState getTransactionState();
    }

    public enum TransactionState {
        IDLE,
        OPEN
    }

    /** The methods {@link #calls} can answer for: the JDBC methods this class implements. */
    private static final Set<String> COUNTED = Arrays.stream(StubConnection.class.getDeclaredMethods())
            .filter(m -> !m.isSynthetic() && Arrays.stream(Connection.class.getMethods())
                    .anyMatch(jdbc -> jdbc.getName().equals(m.getName())))
            .map(Method::getName).collect(Collectors.toUnmodifiableSet());

    private final int id;
    private final boolean strict;
    private final long queryNanos;
    private final List<String> sql = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    /** Statements and result sets not closed yet. */
    final AtomicInteger openStatements = new AtomicInteger();
    private volatile boolean closed;
    private volatile boolean valid = true;
    private volatile Failure failNext;
    private boolean autoCommit = true;
    private int isolation = Connection.TRANSACTION_READ_COMMITTED;
    private boolean readOnly;
    private String catalog = "stub";
    private String schema = "public";
    private int holdability = ResultSet.HOLD_CURSORS_OVER_COMMIT;
    private int networkTimeout;
    private volatile RuntimeException networkTimeoutFault; // see faultOnNextNetworkTimeout
    /** What the server would report. */
    volatile TransactionState transaction = TransactionState.IDLE;
    /** Run, once, at the entry of the next call on one of its LOBs ({@link #beforeNextLobCall}); else null. */
    private volatile Runnable beforeLobCall;

    /** The next statement throws {@code error}; {@code lost}: the connection is gone with it. */
    private record Failure(SQLException error, boolean lost) {
    }

    StubConnection(int id, boolean strict, long queryNanos) {
        this.id = id;
        this.strict = strict;
        this.queryNanos = queryNanos;
    }

    /** A connection that tells its transaction state as pgjdbc does. */
    static final class WireReadable extends StubConnection implements Wire {

        WireReadable(int id, boolean strict, long queryNanos) {
            super(id, strict, queryNanos);
        }

        @Override
        public TransactionState getTransactionState() {
            return transaction;
        }
    }

    /** Its number in its database, from 1. */
    public int id() {
        return id;
    }

    /** The SQL it ran, oldest first, with a COMMIT or ROLLBACK for each commit() and rollback(). */
    public List<String> sql() {
        return Collections.unmodifiableList(sql);
    }

    /** How often {@code method} was called (strict mode only). */
    public int calls(String method) {
        if (!COUNTED.contains(method)) {
            throw new IllegalArgumentException(method + " is left to the generated base, which counts nothing");
        }
        AtomicInteger n = calls.get(method);
        return n == null ? 0 : n.get();
    }

    /** Its statements and result sets not closed yet (strict mode only). */
    public int openStatements() {
        return openStatements.get();
    }

    /** The next statement fails with {@code error}, raised by a server that keeps the connection. */
    public void failNext(SQLException error) {
        failNext = new Failure(error, false);
    }

    /** The next statement fails with {@code error} and the connection is gone: isValid answers false. */
    public void loseNext(SQLException error) {
        failNext = new Failure(error, true);
    }

    /** The next {@code setNetworkTimeout} throws {@code fault}, as a driver's own bug does (MariaDB 2.7's reset()). */
    public void faultOnNextNetworkTimeout(RuntimeException fault) {
        networkTimeoutFault = fault;
    }

    /**
     * The next call on a LOB of this connection ({@link #createBlob}, and the streams it hands out)
     * runs {@code hook} first, on the caller's thread, at the driver's entry: after whatever the
     * pool checked before calling the driver, before the call reaches the "session". A test stops
     * a thread there, to force what may come between a pool's check and the driver's call.
     */
    public void beforeNextLobCall(Runnable hook) {
        beforeLobCall = hook;
    }

    /**
     * A call on one of its LOBs: the hook, if one is set; refused once closed; logged in
     * {@link #sql()} as {@code "Blob." + method}, in the order it reached the connection, as pgjdbc's
     * large-object calls reach the session of the connection they were made on.
     */
    void lobCall(String method) throws SQLException {
        Runnable hook = beforeLobCall;
        if (hook != null) {
            beforeLobCall = null;
            hook.run();
        }
        if (closed) {
            throw new SQLException("connection " + id + " is closed", "08003");
        }
        sql.add("Blob." + method);
    }

    /** From now on isValid answers false, as for a connection the server dropped without a word. */
    public void invalidate() {
        valid = false;
    }

    /** Read without counting a call. */
    boolean closed() {
        return closed;
    }

    /** Strict mode: counts the call, and refuses it once closed (SQLState 08003, connection_does_not_exist). */
    private void enter(String method) throws SQLException {
        count(method);
        if (strict && closed) {
            throw new SQLException("connection " + id + " is closed", "08003");
        }
    }

    private void count(String method) {
        if (strict) {
            calls.computeIfAbsent(method, k -> new AtomicInteger()).incrementAndGet();
        }
    }

    /** Runs {@code statement}: strict, it throws the failure set up or logs it; then the query time passes. */
    void run(String statement) throws SQLException {
        if (strict) {
            Failure f = failNext;
            if (f != null) {
                failNext = null;
                if (f.lost) {
                    valid = false; // as a real driver: the connection is gone, isValid says so
                }
                throw f.error;
            }
            sql.add(statement);
            follow(statement);
        }
        if (queryNanos > 0) {
            LockSupport.parkNanos(queryNanos);
        }
    }

    /** The transaction state the server would have after {@code statement}. */
    private void follow(String statement) {
        if (!autoCommit && transaction == TransactionState.IDLE) {
            transaction = TransactionState.OPEN; // the driver begins one before the first statement
        }
        for (String part : statement.split(";")) {
            String p = part.replaceAll("(?s)/\\*.*?\\*/|--[^\n]*", " ").trim().toUpperCase(Locale.ROOT);
            if (p.startsWith("BEGIN") || p.startsWith("START TRANSACTION") || p.contains("AND CHAIN") && !p.contains("NO CHAIN")) {
                transaction = TransactionState.OPEN;
            } else if (p.startsWith("COMMIT") || p.startsWith("END") || p.startsWith("ABORT")
                    || p.startsWith("ROLLBACK") && !p.matches("ROLLBACK( WORK| TRANSACTION)? TO .*")) {
                transaction = TransactionState.IDLE;
            }
        }
    }

    /** commit() or rollback(): strict, refused in autocommit mode as pgjdbc does, else logged. */
    private void end(String method) throws SQLException {
        enter(method);
        if (!strict) {
            return;
        }
        if (autoCommit) { // pgjdbc's message and SQLState (25P01 no_active_sql_transaction)
            throw new SQLException("Cannot " + method + " when autoCommit is enabled.", "25P01");
        }
        sql.add(method.toUpperCase(Locale.ROOT));
        transaction = TransactionState.IDLE;
    }

    /** Strict statements count as open until closed; the benchmarks' stay as small as they were. */
    private StubStatement statement(String prepared) {
        return strict ? new StrictStatement(this, prepared) : new StubStatement(this);
    }

    /** A metadata result set of one row. */
    ResultSet metaDataRows() {
        return strict ? new StrictResultSet(this, null) : new StubResultSet();
    }

    @Override
    public void close() {
        count("close");
        closed = true;
    }

    @Override
    public boolean isClosed() {
        count("isClosed");
        return closed;
    }

    @Override
    public boolean isValid(int timeout) {
        count("isValid");
        return valid && !closed;
    }

    @Override
    public void abort(Executor executor) throws SQLException {
        enter("abort");
        closed = true;
    }

    @Override
    public void commit() throws SQLException {
        end("commit");
    }

    @Override
    public void rollback() throws SQLException {
        end("rollback");
    }

    @Override
    public void setAutoCommit(boolean on) throws SQLException {
        enter("setAutoCommit");
        if (on && !autoCommit && transaction != TransactionState.IDLE) {
            sql.add("COMMIT"); // as pgjdbc: switching autocommit on commits
            transaction = TransactionState.IDLE;
        }
        autoCommit = on;
    }

    @Override
    public boolean getAutoCommit() throws SQLException {
        enter("getAutoCommit");
        return autoCommit;
    }

    @Override
    public void setTransactionIsolation(int level) throws SQLException {
        enter("setTransactionIsolation");
        isolation = level;
    }

    @Override
    public int getTransactionIsolation() throws SQLException {
        enter("getTransactionIsolation");
        return isolation;
    }

    @Override
    public void setReadOnly(boolean on) throws SQLException {
        enter("setReadOnly");
        readOnly = on;
    }

    @Override
    public boolean isReadOnly() throws SQLException {
        enter("isReadOnly");
        return readOnly;
    }

    @Override
    public void setCatalog(String name) throws SQLException {
        enter("setCatalog");
        catalog = name;
    }

    @Override
    public String getCatalog() throws SQLException {
        enter("getCatalog");
        return catalog;
    }

    @Override
    public void setSchema(String name) throws SQLException {
        enter("setSchema");
        schema = name;
    }

    @Override
    public String getSchema() throws SQLException {
        enter("getSchema");
        return schema;
    }

    @Override
    public void setHoldability(int h) throws SQLException {
        enter("setHoldability");
        holdability = h;
    }

    @Override
    public int getHoldability() throws SQLException {
        enter("getHoldability");
        return holdability;
    }

    @Override
    public void setNetworkTimeout(Executor executor, int milliseconds) throws SQLException {
        enter("setNetworkTimeout");
        RuntimeException fault = networkTimeoutFault;
        if (fault != null) {
            networkTimeoutFault = null;
            throw fault;
        }
        networkTimeout = milliseconds;
    }

    @Override
    public int getNetworkTimeout() throws SQLException {
        enter("getNetworkTimeout");
        return networkTimeout;
    }

    /** A LOB whose every call talks to this connection ({@link StubBlob}). */
    @Override
    public java.sql.Blob createBlob() throws SQLException {
        enter("createBlob");
        return new StubBlob(this);
    }

    @Override
    public Statement createStatement() throws SQLException {
        enter("createStatement");
        return statement(null);
    }

    @Override
    public PreparedStatement prepareStatement(String sql) throws SQLException {
        enter("prepareStatement");
        return statement(sql);
    }

    @Override
    public DatabaseMetaData getMetaData() throws SQLException {
        enter("getMetaData");
        return new StubMetaData(this);
    }

    @Override
    public SQLWarning getWarnings() throws SQLException {
        enter("getWarnings");
        return null;
    }

    @Override
    public void clearWarnings() throws SQLException {
        enter("clearWarnings");
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        enter("unwrap");
        return iface.isInstance(this) ? iface.cast(this) : null;
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        enter("isWrapperFor");
        return iface.isInstance(this);
    }

    @Override
    public String toString() {
        return "StubConnection#" + id;
    }
}
