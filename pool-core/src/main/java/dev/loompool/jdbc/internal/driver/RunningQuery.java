package dev.loompool.jdbc.internal.driver;

import java.lang.invoke.MethodHandle;
import java.sql.Connection;

/**
 * Stops the statement running on a connection the pool is about to abort. An abort closes the
 * socket only: PostgreSQL's backend runs the statement to its end before it notices the client
 * left, holding its locks and its session that long (pgjdbc's own {@code abort()} does the same).
 * pgjdbc's {@code PGConnection.cancelQuery()} asks the server to stop it at once; for a driver
 * without it nothing is sent (MariaDB's server ends the statement with the connection).
 */
public final class RunningQuery {

    private RunningQuery() {
    }

    /** Asks the server to cancel what runs on {@code raw}, if its driver can; quietly, never throws. */
    public static void cancel(Connection raw) {
        try {
            MethodHandle cancel = DriverMethods.find(raw.getClass(), "cancelQuery");
            if (cancel != null) {
                cancel.invoke(raw);
            }
        } catch (Throwable e) {
            // the abort follows in any case
        }
    }
}
