package dev.loompool.jdbc.internal.physical;

import dev.loompool.DestroyReason;
import dev.loompool.PoolStats;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pool's lifecycle lines at DEBUG, like HikariCP's: a connection added (how long its connect
 * took, the counts), retired (the generic pool's reason and the check's words), reset (what the
 * undo undid). The housekeeper's stats line is the generic pool's (engine/Housekeeper), under the
 * same logger name, {@code dev.loompool.pool.<pool name>}: DEBUG for {@code dev.loompool.pool}
 * shows every pool's, for one name that pool's.
 *
 * <p>Nothing is built unless DEBUG is on: each line asks the logger first. The reset's line is on
 * the return path, but only of a return that has something to undo (the common cycle has none),
 * and there it costs that one question. No line names a URL, a user or a password: a connection is
 * its number.
 */
final class LifecycleLog {

    private final Logger log;
    private final String pool;

    LifecycleLog(String poolName) {
        this.pool = poolName;
        this.log = LoggerFactory.getLogger("dev.loompool.pool." + poolName);
    }

    /** Whether the lines are on: asked before anything a line needs is gathered. */
    boolean on() {
        return log.isDebugEnabled();
    }

    /** {@code p} was connected in {@code connectNanos}; {@code stats} null while the pool starts (its pre-warm). */
    void added(PhysicalConnection p, long connectNanos, PoolStats stats) {
        if (!log.isDebugEnabled()) {
            return;
        }
        log.debug("pool '{}': added connection #{}, connected in {} ms ({})", pool, p.id,
                TimeUnit.NANOSECONDS.toMillis(connectNanos),
                stats == null ? "the pool is starting" : stats + "; the new one counts in use until handed out or idle");
    }

    /** {@code p} is closed for {@code reason}, {@code ageNanos} after it was made. */
    void retired(PhysicalConnection p, DestroyReason reason, long ageNanos) {
        if (!log.isDebugEnabled()) {
            return;
        }
        String why = p.retirement();
        log.debug("pool '{}': retired connection #{} after {} s: {} ({})", pool, p.id,
                TimeUnit.NANOSECONDS.toSeconds(ageNanos), why == null ? words(reason) : why, reason);
    }

    /** {@code p} came back and {@code undid} was undone on it (see {@link ResetEvent#plan}); it is kept. */
    void reset(PhysicalConnection p, String undid) {
        log.debug("pool '{}': reset connection #{} on its return, undid: {}", pool, p.id, undid);
    }

    /** The generic pool's reason, when no check of the JDBC pool gave words of its own. */
    private static String words(DestroyReason reason) {
        if (reason == null) {
            return "closed";
        }
        return switch (reason) {
            case POOL_CLOSED -> "the pool closed";
            case POOL_SHRUNK -> "the pool shrunk (maxSize lowered)";
            case INVALIDATED -> "invalidated by its holder";
            case HEALTHCHECK_FAILED -> "failed the idle check";
            case BEFORE_ACQUIRE_REJECTED -> "failed validation before hand-out";
            case BEFORE_RELEASE_REJECTED -> "refused by the release check";
        };
    }
}
