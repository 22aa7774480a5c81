package dev.loompool.jdbc.internal.physical;

import dev.loompool.CircuitBreakerState;
import dev.loompool.engine.HandOutCheck;
import dev.loompool.jdbc.internal.driver.BrokenConnections;
import dev.loompool.jdbc.internal.driver.FunctionCatalog;
import dev.loompool.jdbc.internal.driver.JdbcUrls;
import dev.loompool.jdbc.internal.sql.SqlFunctions;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
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
    /** The least a hand-out validation gets, whatever its caller has left: a round trip to a distant server. */
    static final long MIN_VALIDATION_NANOS = 250_000_000L;
    /** The words of a "retired" line (LifecycleLog), as the release check's Retired says them. */
    static final String MAX_LIFETIME = "max lifetime reached";

    private IdleChecks() {
    }

    /**
     * The check of an idle connection as the generic pool hands it out, told its caller's deadline
     * (the pool's one clock reading serves it); {@code test(p)} alone, which the pool does not call,
     * gives it the whole acquireTimeout.
     */
    static HandOutCheck<PhysicalConnection> handOut(JdbcPool pool) {
        return new HandOutCheck<>() {
            @Override
            public boolean test(PhysicalConnection p, long now, long deadline) throws SQLException {
                return validBeforeHandOut(pool, p, now, deadline);
            }

            @Override
            public boolean test(PhysicalConnection p) throws SQLException {
                long now = pool.clock.nanoTime();
                return validBeforeHandOut(pool, p, now, now + pool.acquireTimeoutNanos());
            }
        };
    }

    /**
     * One clock reading ({@code now}) serves the lifetime check and the idle check; the handle's
     * bind time is read on the coarse clock, as the release check reads the end of the binding. A
     * connection that sat idle is validated within {@link #handOutValidationNanos}, so that a dead
     * one leaves its caller time for a connect before {@code deadline}.
     */
    static boolean validBeforeHandOut(JdbcPool pool, PhysicalConnection p, long now, long deadline) throws SQLException {
        p.handedOutAt = pool.clock.coarseNanoTime();
        if (now - p.expiresAt >= 0) {
            p.noteRetirement(MAX_LIFETIME);
            return false;
        }
        // While the circuit is not ACTIVE, validate even a fresh one: the hand-out may be the probe.
        if (now - p.lastReturnedAt < TRUST_IDLE_NANOS && p.lastReturnedAt - pool.suspectSince > 0
                && pool.pool.state() == CircuitBreakerState.ACTIVE) {
            return true;
        }
        if (ForeignRelease.validWithin(p, handOutValidationNanos(pool.validationSeconds(), deadline - now), false)) {
            if (pool.classifier.refreshDue(now)) { // after a quiet while: the first statement gets a current catalog
                try {
                    readFunctions(pool, p, now);
                } catch (Retired broken) {
                    p.noteRetirement(broken.getMessage());
                    return false;
                }
            }
            return true;
        }
        p.noteRetirement("failed validation before hand-out (isValid)");
        // The others idle as long may be as dead (the network forgot them all): validated at hand-out
        // now, whatever their idle time, and checked side by side in the background by the generic pool.
        pool.suspectSince = now;
        return false;
    }

    /**
     * How long the validation of an idle connection handed out may take, when its caller has
     * {@code remaining} nanoseconds left: validationTimeout, but no more than half of what remains,
     * so that if the connection is dead (a network that forgot it answers nothing, and isValid
     * waits out its whole timeout) the caller has the other half for a connect on the freed slot.
     * A caller with less than twice {@link #MIN_VALIDATION_NANOS} left gives it what remains (no
     * connect would fit anyway), and at least that minimum: a live connection is not retired
     * untested because its caller waited long for it.
     */
    static long handOutValidationNanos(int validationSeconds, long remaining) {
        long half = remaining / 2;
        long budget = half >= MIN_VALIDATION_NANOS ? half : Math.max(remaining, MIN_VALIDATION_NANOS);
        return Math.min(budget, TimeUnit.SECONDS.toNanos(validationSeconds));
    }

    static boolean healthyWhileIdle(JdbcPool pool, PhysicalConnection p) throws SQLException {
        if (pool.clock.nanoTime() - p.expiresAt >= 0) {
            p.noteRetirement(MAX_LIFETIME);
            return false;
        }
        if (p.state() == ConnectionState.EVICTED) {
            p.noteRetirement("evicted");
            return false;
        }
        if (pool.idleTimeoutNanos() > 0 && pool.clock.nanoTime() - p.lastReturnedAt > pool.idleTimeoutNanos()
                && pool.pool.stats().total() > pool.minSize()) {
            p.noteRetirement("idle timeout");
            return false;
        }
        if (!p.raw.isValid(pool.validationSeconds())) { // the keepalive
            p.noteRetirement("failed validation while idle (isValid)");
            return false;
        }
        long now = pool.clock.nanoTime();
        if (pool.classifier.refreshDue(now)) { // an idle pool keeps its catalog current too
            try {
                readFunctions(pool, p, now);
            } catch (Retired broken) {
                p.noteRetirement(broken.getMessage());
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
