package dev.loompool.jdbc;

import dev.loompool.jdbc.internal.Internals;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One stub physical connection: it remembers its settings, logs the SQL it ran and how often each
 * method was called, and throws {@link #failNext} at the next statement.
 *
 * <p>Strict where the pool's logic depends on it, like pgjdbc: it keeps the server's transaction
 * state from the SQL it runs and the autocommit mode, reports it as pgjdbc does through
 * {@code getTransactionState()} (unless the database hides it, {@link StubDatabase#wireReadable}),
 * and refuses {@code commit()} and {@code rollback()} in autocommit mode.
 */
final class StubConnection implements InvocationHandler {

    /** pgjdbc's shape: a connection type with {@code getTransactionState()}, an enum with IDLE. */
    public interface Wire {
        TransactionState getTransactionState();
    }

    public enum TransactionState {
        IDLE,
        OPEN,
        FAILED
    }

    final StubDatabase db;
    final int id;
    final List<String> sql = new CopyOnWriteArrayList<>();
    final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    volatile boolean closed;
    volatile boolean valid = true;
    volatile SQLException failNext;
    /** {@link #failNext} is an error the server raised on a live connection, whatever its SQLState. */
    volatile boolean serverRaised;
    boolean autoCommit = true;
    int isolation = Connection.TRANSACTION_READ_COMMITTED;
    boolean readOnly;
    String catalog = "stub";
    String schema = "public";
    int holdability = ResultSet.HOLD_CURSORS_OVER_COMMIT;
    int networkTimeout;
    final AtomicInteger openStatements = new AtomicInteger();
    /** What the server would report. */
    volatile TransactionState transaction = TransactionState.IDLE;

    StubConnection(StubDatabase db, int id) {
        this.db = db;
        this.id = id;
    }

    Connection proxy() {
        Class<?>[] types = db.wireReadable ? new Class<?>[] {Connection.class, Wire.class} : new Class<?>[] {Connection.class};
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), types, this);
    }

    int calls(String method) {
        AtomicInteger n = calls.get(method);
        return n == null ? 0 : n.get();
    }

    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
        String name = m.getName();
        calls.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
        if (closed && !name.equals("close") && !name.equals("isClosed") && !name.equals("isValid")) {
            throw new SQLException("connection " + id + " is closed", "08003");
        }
        switch (name) {
            case "close":
                closed = true;
                return null;
            case "isClosed":
                return closed;
            case "isValid":
                return valid && !closed;
            case "abort":
                closed = true;
                return null;
            case "setAutoCommit":
                if ((Boolean) args[0] && !autoCommit && transaction != TransactionState.IDLE) {
                    sql.add("COMMIT"); // as pgjdbc: switching autocommit on commits
                    transaction = TransactionState.IDLE;
                }
                autoCommit = (Boolean) args[0];
                return null;
            case "getTransactionState":
                return transaction;
            case "getAutoCommit":
                return autoCommit;
            case "setTransactionIsolation":
                isolation = (Integer) args[0];
                return null;
            case "getTransactionIsolation":
                return isolation;
            case "setReadOnly":
                readOnly = (Boolean) args[0];
                return null;
            case "isReadOnly":
                return readOnly;
            case "setCatalog":
                catalog = (String) args[0];
                return null;
            case "getCatalog":
                return catalog;
            case "setSchema":
                schema = (String) args[0];
                return null;
            case "getSchema":
                return schema;
            case "setHoldability":
                holdability = (Integer) args[0];
                return null;
            case "getHoldability":
                return holdability;
            case "setNetworkTimeout":
                networkTimeout = (Integer) args[1];
                return null;
            case "getNetworkTimeout":
                return networkTimeout;
            case "commit":
            case "rollback":
                if (autoCommit) { // pgjdbc's message and SQLState (25P01 no_active_sql_transaction)
                    throw new SQLException("Cannot " + name + " when autoCommit is enabled.", "25P01");
                }
                sql.add(name.toUpperCase(java.util.Locale.ROOT));
                transaction = TransactionState.IDLE;
                return null;
            case "createStatement":
                return new StubStatement(this, null).proxy(Statement.class);
            case "prepareStatement":
                return new StubStatement(this, (String) args[0]).proxy(PreparedStatement.class);
            case "getMetaData":
                return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DatabaseMetaData.class},
                        (p, mm, a) -> switch (mm.getName()) {
                            case "getDatabaseProductName" -> db.productName;
                            case "getTables" -> {
                                openStatements.incrementAndGet();
                                yield StubStatement.resultSet(this);
                            }
                            default -> null;
                        });
            case "getWarnings":
                return null;
            case "clearWarnings":
                return null;
            case "unwrap":
                return ((Class<?>) args[0]).isInstance(this) ? this : null;
            case "isWrapperFor":
                return ((Class<?>) args[0]).isInstance(this);
            case "hashCode":
                return System.identityHashCode(proxy);
            case "equals":
                return proxy == args[0];
            case "toString":
                return "StubConnection#" + id;
            default:
                return null;
        }
    }

    /** Runs {@code sql} on this connection, or throws what {@link #failNext} holds. */
    void run(String statement) throws SQLException {
        SQLException f = failNext;
        if (f != null) {
            failNext = null;
            if (Internals.isBroken(f) && !serverRaised) {
                valid = false; // as a real driver: the connection is gone, isValid says so
            }
            throw f;
        }
        sql.add(statement);
        if (!autoCommit && transaction == TransactionState.IDLE) {
            transaction = TransactionState.OPEN; // the driver begins one before the first statement
        }
        for (String part : statement.split(";")) {
            String p = part.replaceAll("(?s)/\\*.*?\\*/|--[^\n]*", " ").trim().toUpperCase(java.util.Locale.ROOT);
            if (p.startsWith("BEGIN") || p.startsWith("START TRANSACTION") || p.contains("AND CHAIN") && !p.contains("NO CHAIN")) {
                transaction = TransactionState.OPEN;
            } else if (p.startsWith("COMMIT") || p.startsWith("END") || p.startsWith("ABORT")
                    || p.startsWith("ROLLBACK") && !p.matches("ROLLBACK( WORK| TRANSACTION)? TO .*")) {
                transaction = TransactionState.IDLE;
            }
        }
    }
}
