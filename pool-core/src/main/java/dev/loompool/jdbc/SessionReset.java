package dev.loompool.jdbc;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * How to wipe the session state SQL left on a connection, found once from the first connection:
 * PostgreSQL {@code DISCARD ALL}; MariaDB Connector/J {@code reset()} and MySQL Connector/J
 * {@code resetServerState()} (both COM_RESET_CONNECTION), reached through a method handle because
 * the core does not depend on any driver. Anything else cannot be reset: the connection is closed.
 */
final class SessionReset {

    static final SessionReset NONE = new SessionReset(null, null);

    private final String sql;
    private final MethodHandle method;

    private SessionReset(String sql, MethodHandle method) {
        this.sql = sql;
        this.method = method;
    }

    static SessionReset detect(Connection raw) throws SQLException {
        String product = raw.getMetaData().getDatabaseProductName();
        if (product == null) {
            return NONE;
        }
        if (product.contains("PostgreSQL")) {
            return new SessionReset("DISCARD ALL", null);
        }
        if (product.contains("MariaDB")) {
            return byMethod(raw, "reset");
        }
        if (product.contains("MySQL")) {
            return byMethod(raw, "resetServerState");
        }
        return NONE;
    }

    private static SessionReset byMethod(Connection raw, String name) {
        try {
            MethodHandle handle = MethodHandles.publicLookup()
                    .findVirtual(raw.getClass(), name, MethodType.methodType(void.class));
            return new SessionReset(null, handle.asType(MethodType.methodType(void.class, Connection.class)));
        } catch (ReflectiveOperationException e) {
            return NONE;
        }
    }

    boolean supported() {
        return sql != null || method != null;
    }

    /** Wipes the session; the caller has rolled back first, and re-initialises after. */
    void reset(Connection raw) throws SQLException {
        if (sql != null) {
            try (Statement st = raw.createStatement()) {
                st.execute(sql);
            }
            return;
        }
        try {
            method.invokeExact(raw);
        } catch (SQLException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new SQLException("session reset failed", e);
        }
    }
}
