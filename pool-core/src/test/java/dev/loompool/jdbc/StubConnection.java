package dev.loompool.jdbc;

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
 */
final class StubConnection implements InvocationHandler {

    final StubDatabase db;
    final int id;
    final List<String> sql = new CopyOnWriteArrayList<>();
    final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    volatile boolean closed;
    volatile boolean valid = true;
    volatile SQLException failNext;
    boolean autoCommit = true;
    int isolation = Connection.TRANSACTION_READ_COMMITTED;
    boolean readOnly;
    String catalog = "stub";
    String schema = "public";
    int holdability = ResultSet.HOLD_CURSORS_OVER_COMMIT;
    int networkTimeout;
    final AtomicInteger openStatements = new AtomicInteger();

    StubConnection(StubDatabase db, int id) {
        this.db = db;
        this.id = id;
    }

    Connection proxy() {
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class}, this);
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
                autoCommit = (Boolean) args[0];
                return null;
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
                sql.add("COMMIT");
                return null;
            case "rollback":
                sql.add("ROLLBACK");
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
            throw f;
        }
        sql.add(statement);
    }
}
