package dev.loompool.jdbc.internal.physical;

import dev.loompool.CircuitBreakerState;
import dev.loompool.jdbc.internal.driver.BrokenConnections;
import dev.loompool.jdbc.internal.driver.FunctionCatalog;
import dev.loompool.jdbc.internal.driver.JdbcUrls;
import dev.loompool.jdbc.internal.sql.SqlFunctions;
import java.sql.SQLException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a connection that sat idle in a {@link JdbcPool} is still good: the check as it is
 * handed out and the housekeeper's check of the idle ones (callbacks of the generic pool), and the
 * read of the function table that they and the release check run when it is due.
 */
final class IdleChecks {

    /** The pool's logger: its warnings keep their category. */
    private static final Logger log = LoggerFactory.getLogger(JdbcPool.class);
    /** A connection idle for less than this is handed out without a round trip to validate it. */
    private static final long TRUST_IDLE_NANOS = 500_000_000L;

    private IdleChecks() {
    }

    /**
     * One clock reading serves the lifetime check and the idle check; the handle's bind time is
     * read on the coarse clock, as the release check reads the end of the binding.
     */
    static boolean validBeforeHandOut(JdbcPool pool, PhysicalConnection p) throws SQLException {
        long now = pool.clock.nanoTime();
        p.handedOutAt = pool.clock.coarseNanoTime();
        if (now - p.expiresAt >= 0) {
            return false;
        }
        // While the circuit is not ACTIVE, validate even a fresh one: the hand-out may be the probe.
        if (now - p.lastReturnedAt < TRUST_IDLE_NANOS && p.lastReturnedAt - pool.suspectSince > 0
                && pool.pool.state() == CircuitBreakerState.ACTIVE) {
            return true;
        }
        if (p.raw.isValid(pool.handOutValidationSeconds())) {
            if (pool.classifier.refreshDue(now)) { // after a quiet while: the first statement gets a current catalog
                try {
                    readFunctions(pool, p, now);
                } catch (Retired broken) {
                    return false;
                }
            }
            return true;
        }
        pool.suspectSince = now;
        return false;
    }

    /**
     * A caller waits for the validation of the idle connection it is handed: no longer than its
     * acquire timeout, in the whole seconds {@code isValid} takes. A connection that fails it is
     * replaced by a connect on the caller's slot, within what is left of the caller's deadline.
     */
    static int handOutValidationSeconds(int validationSeconds, Duration acquireTimeout) {
        if (acquireTimeout.isZero()) {
            return validationSeconds;
        }
        long acquireSeconds = Math.max(1, (acquireTimeout.toMillis() + 999) / 1000);
        return (int) Math.min(validationSeconds, acquireSeconds);
    }

    static boolean healthyWhileIdle(JdbcPool pool, PhysicalConnection p) throws SQLException {
        if (pool.clock.nanoTime() - p.expiresAt >= 0 || p.state() == ConnectionState.EVICTED) {
            return false;
        }
        if (pool.idleTimeoutNanos() > 0 && pool.clock.nanoTime() - p.lastReturnedAt > pool.idleTimeoutNanos()
                && pool.pool.stats().total() > pool.minSize()) {
            return false;
        }
        if (!p.raw.isValid(pool.validationSeconds())) { // the keepalive
            return false;
        }
        long now = pool.clock.nanoTime();
        if (pool.classifier.refreshDue(now)) { // an idle pool keeps its catalog current too
            try {
                readFunctions(pool, p, now);
            } catch (Retired broken) {
                return false;
            }
        }
        return true;
    }

    /**
     * Reads the function table again on a connection just reset or checked (DESIGN.md §4: after DDL
     * through the pool, and every minute). A failure keeps the old table and tries again later; the
     * connection goes on as the reset or the check left it, or is retired if the read broke it.
     */
    static void readFunctions(JdbcPool pool, PhysicalConnection p, long now) throws Retired {
        SqlFunctions read = null;
        try {
            read = FunctionCatalog.read(p.raw, pool.classifier.dialect());
        } catch (SQLException e) {
            log.warn("pool '{}': could not read the catalog of functions and views again, keeping the last one "
                    + "(SQLState {}: {})", pool.name, e.getSQLState(),
                    pool.factory.secrets().mask(JdbcUrls.redact(e.getMessage())));
            if (BrokenConnections.lost(p.raw, e, pool.validationSeconds())) {
                throw new Retired("broken while the catalog was read: " + e.getSQLState());
            }
        } finally {
            pool.classifier.refreshDone(now, read);
        }
    }
}
