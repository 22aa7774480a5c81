package dev.loompool.jdbc.internal.physical;

import dev.loompool.engine.CreateTimedOut;
import dev.loompool.jdbc.internal.driver.JdbcUrls;
import java.sql.SQLException;
import java.time.Duration;

/**
 * What a caller gets when connects fail: the start that gave up (an exception naming the pool, the
 * driver's as its cause, with its SQLState and vendor code), and a request whose own connect failed
 * (an exception naming the pool, of the driver's kind, SQLState and vendor code, the driver's as its cause).
 */
final class ConnectFailures {

    /**
     * The most suppressed exceptions this pool leaves on one exception. A driver may throw one
     * instance again and again (a cached failure): what the pool adds to it must not grow with the
     * failures, nor cost more per failure as they go on.
     */
    static final int MAX_SUPPRESSED = 4;

    private ConnectFailures() {
    }

    /** The start gave up after {@code attempts} connects over {@code elapsedNanos}; {@code cause} is the last failure. */
    static SQLException startFailed(JdbcPool pool, Duration timeout, int attempts, long elapsedNanos, Throwable cause) {
        String tried = attempts + " attempts over " + Duration.ofNanos(elapsedNanos).toMillis() + " ms";
        String how;
        if (Thread.currentThread().isInterrupted()) {
            how = " (interrupted while waiting to retry, after " + tried + ")";
        } else if (pool.connector.abandoned()) {
            how = " (closed while starting, after " + tried + ")";
        } else if (timeout.isZero()) {
            how = ""; // one attempt, as HikariCP's default: nothing to count
        } else {
            how = " within initializationFailTimeout=" + timeout.toMillis() + " ms (" + tried + ")";
        }
        SQLException driver = cause instanceof SQLException s ? s : null;
        return pool.factory.secrets().mask(new SQLException("pool '" + pool.name + "': could not open its minSize="
                + pool.minSize() + " connections to " + JdbcUrls.redact(pool.factory.url()) + how + ": "
                + cause.getMessage(), driver != null ? driver.getSQLState() : "08001",
                driver != null ? driver.getErrorCode() : 0, cause));
    }

    /**
     * A request's connect failed with {@code driver} (masked already). It reaches the caller as the
     * pool's errors do, naming the pool and its counts in its message (DESIGN.md §4), also when the
     * driver's own timeout ended the connect, followed by the driver's message; and as the driver
     * said it: of its kind (the java.sql types exception translators read), with its SQLState and
     * vendor code, and the driver's exception, untouched, as its cause. Each caller gets its own:
     * a driver that throws one instance again and again (a cached failure) sees nothing added to it.
     */
    static SQLException connectFailed(JdbcPool pool, SQLException driver) {
        return pool.factory.secrets().relabeled(driver, "pool '" + pool.name + "': could not open a connection ("
                + pool.pool.stats() + "): " + driver.getMessage());
    }

    /**
     * What the time of a caller that timed out waiting for its own connect went on: an idle
     * connection it was handed first that failed its validation (and was closed), then the connect.
     */
    static String connectTimedOut(CreateTimedOut t, String timeout) {
        if (t.rejectedCheckNanos() < 0) {
            return "the database did not complete a connect within " + timeout;
        }
        return "no connection within " + timeout + ": an idle connection it was handed failed its validation ("
                + t.rejectedCheckNanos() / 1_000_000 + " ms) and was closed, then the database did not complete a "
                + "new connect in the " + t.createNanos() / 1_000_000 + " ms left";
    }

    /**
     * Adds {@code other} to {@code failure}'s suppressed list unless it is the same instance (which
     * {@code addSuppressed} refuses with an IllegalArgumentException), is there already, already holds
     * {@code failure} (a cycle, when drivers share instances), or the list is full: shared instances
     * come back on every failure, and the list must not grow with them.
     */
    static void suppress(SQLException failure, SQLException other) {
        if (other == failure) {
            return;
        }
        Throwable[] present = failure.getSuppressed();
        if (present.length >= MAX_SUPPRESSED || contains(present, other) || contains(other.getSuppressed(), failure)) {
            return;
        }
        failure.addSuppressed(other);
    }

    private static boolean contains(Throwable[] list, Throwable wanted) {
        for (Throwable t : list) {
            if (t == wanted) {
                return true;
            }
        }
        return false;
    }
}
