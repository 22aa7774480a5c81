package dev.loompool.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.ResultSet;

/** A stub statement: executing logs the SQL on its connection; queries return one row. */
final class StubStatement implements InvocationHandler {

    private final StubConnection connection;
    private final String prepared;
    private boolean closed;
    /** As in JDBC: closing its result set closes the statement too. */
    private boolean closeOnCompletion;

    StubStatement(StubConnection connection, String prepared) {
        this.connection = connection;
        this.prepared = prepared;
        connection.openStatements.incrementAndGet();
    }

    <S> S proxy(Class<S> type) {
        return type.cast(Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, this));
    }

    static ResultSet resultSet(StubConnection connection) {
        return resultSet(connection, () -> { });
    }

    static ResultSet resultSet(StubConnection connection, Runnable onClose) {
        boolean[] state = new boolean[2]; // [0] next called, [1] closed
        return (ResultSet) Proxy.newProxyInstance(StubStatement.class.getClassLoader(), new Class<?>[] {ResultSet.class},
                (p, m, a) -> switch (m.getName()) {
                    case "next" -> {
                        boolean first = !state[0];
                        state[0] = true;
                        yield first;
                    }
                    case "getInt" -> connection.id;
                    case "getLong" -> (long) connection.id;
                    case "getString" -> "row";
                    case "close" -> {
                        if (!state[1]) {
                            state[1] = true;
                            connection.openStatements.decrementAndGet();
                            onClose.run();
                        }
                        yield null;
                    }
                    case "isClosed" -> state[1];
                    default -> null;
                });
    }

    private void close() {
        if (!closed) {
            closed = true;
            connection.openStatements.decrementAndGet();
        }
    }

    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
        switch (m.getName()) {
            case "close":
                close();
                return null;
            case "closeOnCompletion":
                closeOnCompletion = true;
                return null;
            case "isCloseOnCompletion":
                return closeOnCompletion;
            case "isClosed":
                return closed;
            case "executeQuery":
                connection.run(args == null ? prepared : (String) args[0]);
                connection.openStatements.incrementAndGet(); // the result set counts until closed
                return resultSet(connection, () -> {
                    if (closeOnCompletion) {
                        close();
                    }
                });
            case "execute":
                connection.run(args == null ? prepared : (String) args[0]);
                return false;
            case "executeUpdate":
            case "executeLargeUpdate":
                connection.run(args == null ? prepared : (String) args[0]);
                return m.getReturnType() == long.class ? (Object) 1L : (Object) 1;
            case "getConnection":
                throw new AssertionError("the logical statement must answer getConnection itself");
            case "hashCode":
                return System.identityHashCode(proxy);
            case "equals":
                return proxy == args[0];
            default:
                return zero(m.getReturnType());
        }
    }

    /** What a method the stub does not know returns: zero, false or null (a plain ?: chain would unbox a null). */
    private static Object zero(Class<?> r) {
        if (r == boolean.class) {
            return false;
        }
        if (r == int.class) {
            return 0;
        }
        if (r == long.class) {
            return 0L;
        }
        return null;
    }
}
