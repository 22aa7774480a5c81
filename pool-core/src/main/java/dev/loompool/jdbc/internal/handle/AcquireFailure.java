package dev.loompool.jdbc.internal.handle;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

/**
 * An acquire of a handle that failed ({@code LogicalConnection.bind}), kept for the other threads
 * of the handle that waited for it, which fail with it at once instead of each waiting an
 * acquireTimeout of its own: made only when an acquire fails.
 *
 * @param failure what the acquiring thread got
 * @param at when, on {@link System#nanoTime()}
 */
record AcquireFailure(SQLException failure, long at) {

    /** The failure of {@code h}'s last acquire, for another thread: its own exception, the original as its cause. */
    static SQLException shared(LogicalConnection h) {
        SQLException e = h.acquireFailure.failure();
        String message = e.getMessage() + " (the acquire of another thread of this connection, which this one waited for)";
        return e instanceof SQLTransientConnectionException
                ? new SQLTransientConnectionException(message, e.getSQLState(), e.getErrorCode(), e)
                : new SQLException(message, e.getSQLState(), e.getErrorCode(), e);
    }
}
