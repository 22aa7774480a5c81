package dev.loompool.jdbc.internal.physical;

import dev.loompool.jdbc.internal.driver.JdbcUrls;
import java.sql.SQLException;
import java.time.Duration;

/**
 * What a caller gets when connects fail: the start that gave up (an exception naming the pool, the
 * driver's as its cause, with its SQLState and vendor code), and a request whose own connect failed
 * (the driver's exception, with the pool named in a suppressed one).
 */
final class ConnectFailures {

    private ConnectFailures() {
    }

    /** The start gave up after {@code attempts} connects over {@code elapsedNanos}; {@code cause} is the last failure. */
    static SQLException startFailed(JdbcPool pool, Duration timeout, int attempts, long elapsedNanos, Throwable cause) {
        String tried = attempts + " attempts over " + Duration.ofNanos(elapsedNanos).toMillis() + " ms";
        String how;
        if (Thread.currentThread().isInterrupted()) {
            how = " (interrupted while waiting to retry, after " + tried + ")";
        } else if (timeout.isZero()) {
            how = ""; // one attempt, as HikariCP's default: nothing to count
        } else {
            how = " within initializationFailTimeout=" + timeout.toMillis() + " ms (" + tried + ")";
        }
        SQLException driver = cause instanceof SQLException s ? s : null;
        return pool.factory.secrets().mask(new SQLException("pool '" + pool.name + "': could not open its minSize="
                + pool.minSize + " connections to " + JdbcUrls.redact(pool.factory.url()) + how + ": "
                + cause.getMessage(), driver != null ? driver.getSQLState() : "08001",
                driver != null ? driver.getErrorCode() : 0, cause));
    }

    /**
     * A request's connect failed with {@code driver} (masked already). It reaches the caller as the
     * driver threw it (DESIGN.md §4: its kind, message, SQLState and code are what callers and
     * exception translators read), with one suppressed exception that names the pool and its counts,
     * so that a stack trace in a log says which pool could not connect, also when the driver's own
     * timeout ended the connect. Added once, however many callers see the same exception.
     */
    static SQLException connectFailed(JdbcPool pool, SQLException driver) {
        String note = "pool '" + pool.name + "': could not open a connection";
        for (Throwable s : driver.getSuppressed()) {
            if (String.valueOf(s.getMessage()).startsWith(note)) {
                return driver;
            }
        }
        driver.addSuppressed(new SQLException(note + " (" + pool.pool.stats() + ")", driver.getSQLState()));
        return driver;
    }
}
