package dev.loompool.jdbc.internal.physical;

import dev.loompool.jdbc.internal.driver.JdbcUrls;
import java.sql.SQLException;
import java.sql.SQLInvalidAuthorizationSpecException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLNonTransientException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.sql.SQLTransientException;
import java.time.Duration;

/**
 * What a caller gets when connects fail: the start that gave up, and a request whose own connect
 * failed. Both name the pool first, as every runtime error of the pool does, and keep the driver's
 * exception as the cause with its SQLState and vendor code, so that an exception translator (Spring's
 * error codes) reads the driver's verdict.
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
     * A request's connect failed with {@code driver} (masked already): the same kind of exception,
     * naming the pool and its counts, then the driver's message; the driver's exception is the cause.
     * Without the pool's name a connect that the driver's own timeout ended says nothing of which pool.
     */
    static SQLException connectFailed(JdbcPool pool, SQLException driver) {
        String message = "pool '" + pool.name + "': could not open a connection (" + pool.pool.stats() + "): "
                + pool.factory.secrets().mask(String.valueOf(driver.getMessage()));
        return sameKind(driver, message, driver.getSQLState(), driver.getErrorCode());
    }

    /** The standard JDBC subclass {@code driver} is, or extends: what exception translators read. */
    private static SQLException sameKind(SQLException driver, String message, String state, int code) {
        if (driver instanceof SQLInvalidAuthorizationSpecException) {
            return new SQLInvalidAuthorizationSpecException(message, state, code, driver);
        }
        if (driver instanceof SQLNonTransientConnectionException) {
            return new SQLNonTransientConnectionException(message, state, code, driver);
        }
        if (driver instanceof SQLTransientConnectionException) {
            return new SQLTransientConnectionException(message, state, code, driver);
        }
        if (driver instanceof SQLTimeoutException) {
            return new SQLTimeoutException(message, state, code, driver);
        }
        if (driver instanceof SQLRecoverableException) {
            return new SQLRecoverableException(message, state, code, driver);
        }
        if (driver instanceof SQLNonTransientException) {
            return new SQLNonTransientException(message, state, code, driver);
        }
        if (driver instanceof SQLTransientException) {
            return new SQLTransientException(message, state, code, driver);
        }
        return new SQLException(message, state, code, driver);
    }
}
