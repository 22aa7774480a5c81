package dev.loompool.jdbc.internal.driver;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;

/**
 * Decides whether an exception from the driver means the physical connection is gone, so that it
 * is destroyed instead of reused and counted as a circuit-breaker failure.
 */
public final class BrokenConnections {

    private BrokenConnections() {
    }

    /**
     * Whether {@code e} means that {@code raw} is gone, checked against the connection itself: a
     * server also sends such SQLStates for its own reasons (a user's {@code RAISE ... USING ERRCODE
     * = '08006'}, a MariaDB {@code SIGNAL}), and a healthy connection must not count towards the
     * circuit breaker. Drivers close the connection on a real I/O failure, so the common case
     * costs no round trip; otherwise one validation, on an error path only.
     */
    public static boolean lost(Connection raw, SQLException e, int validationSeconds) {
        if (!isBroken(e)) {
            return false;
        }
        try {
            return raw.isClosed() || !raw.isValid(validationSeconds);
        } catch (SQLException | RuntimeException unknown) {
            return true;
        }
    }

    public static boolean isBroken(SQLException e) {
        for (SQLException x = e; x != null; x = x.getNextException()) {
            if (isBrokenOne(x)) {
                return true;
            }
            if (x.getCause() instanceof SQLException cause && cause != x.getNextException() && isBrokenOne(cause)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isBrokenOne(SQLException e) {
        if (e instanceof SQLNonTransientConnectionException || e instanceof SQLRecoverableException) {
            return true;
        }
        String state = e.getSQLState();
        if (state != null) {
            if (state.startsWith("08")) { // SQL standard class 08: connection exception
                return true;
            }
            switch (state) {
                case "57P01": // PostgreSQL admin_shutdown (also pg_terminate_backend)
                case "57P02": // PostgreSQL crash_shutdown
                case "57P03": // PostgreSQL cannot_connect_now
                case "01002": // SQL standard: disconnect error
                case "JZ0C0": // Sybase jConnect: connection is already closed
                case "JZ0C1": // Sybase jConnect: connection is already closed
                    return true;
                default:
                    break;
            }
        }
        switch (e.getErrorCode()) {
            case 1927: // MySQL/MariaDB ER_CONNECTION_KILLED (SQLState 70100)
            case 2006: // MySQL/MariaDB CR_SERVER_GONE_ERROR: server has gone away
            case 2013: // MySQL/MariaDB CR_SERVER_LOST: lost connection during query
                return state == null || state.startsWith("HY") || state.equals("70100");
            default:
                return false;
        }
    }
}
