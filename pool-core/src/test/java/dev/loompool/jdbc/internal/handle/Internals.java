package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import dev.loompool.jdbc.internal.physical.Watcher;
import dev.loompool.jdbc.internal.driver.BrokenConnections;
import dev.loompool.jdbc.internal.driver.JdbcUrls;
import dev.loompool.jdbc.LoomConnection;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;

/**
 * The tests' door into the engine's package-private parts: the tests of the public API live in
 * {@code dev.loompool.jdbc}, where the engine's rules (URL redaction, the broken-connection table,
 * the handle's close and reclaim protocol) are not visible. The reclaimer's scans are
 * {@code ReclaimerInternals}', beside the reclaimer.
 */
public final class Internals {

    /** The reclaimer's scan period. */
    public static final Duration RECLAIM_PERIOD = Duration.ofMillis(Watcher.PERIOD_MILLIS);

    private Internals() {
    }

    /**
     * Stops the periodic reclaimer scans of the pool {@code c} came from; a test's scanNow() still
     * scans. For the model checker, which must run every thread that touches the handle: a scan on
     * a thread it does not schedule holds locks it cannot see released.
     */
    public static void stopPeriodicScans(Connection c) throws SQLException {
        ((LogicalConnection) c.unwrap(LoomConnection.class)).pool.watcher.stop();
    }

    public static String redact(String url) {
        return JdbcUrls.redact(url);
    }

    public static Properties withTimeouts(String url, Properties properties, Duration acquireTimeout) {
        return JdbcUrls.withTimeouts(url, properties, acquireTimeout);
    }

    public static boolean isBroken(SQLException e) {
        return BrokenConnections.isBroken(e);
    }

    /**
     * A's handle seen from inside, for the tests of the close/reclaim protocol. Taken with
     * {@code unwrap}, which makes the calling thread its user: take it on A's thread.
     */
    public static Handle handle(Connection c) throws SQLException {
        return new Handle((LogicalConnection) c.unwrap(LoomConnection.class));
    }

    public static final class Handle {

        private final LogicalConnection handle;

        private Handle(LogicalConnection handle) {
            this.handle = handle;
        }

        /** The reclaimer's claim on the handle from its ended owner, or null if another thread used it. */
        public Object claimForReclaim(Thread owner) {
            return handle.claimForReclaim(owner);
        }

        public void dropClaim(Object claim) {
            handle.dropClaim((HandleLife.Claim) claim);
        }

        public Thread ownerThread() {
            return handle.ownerThread();
        }

        /** The handle's watch, or null once it ended. */
        public Watch watch() {
            HandleWatch w = handle.watch();
            return w == null ? null : new Watch(w);
        }

        /** The physical connection it holds now, opaque to the tests; null if none. */
        public Object connection() {
            return handle.physical;
        }

        /** The reclaimer's first step: it ends the binding of the handle's connection. */
        public Taken take() {
            PhysicalConnection p = handle.physical;
            if (!p.unbind(p.binding())) {
                throw new AssertionError("the binding of " + p + " was ended already");
            }
            handle.takenFromUnderIt(); // as the reclaimer says so, right after it won the binding
            return new Taken(handle, p);
        }
    }

    /** The binding that holds {@code connection} (from {@link Handle#connection()}) now; 0 if idle. */
    public static long binding(Object connection) {
        return ((PhysicalConnection) connection).binding();
    }

    /** A handle's watch, which counts the handle down once, whoever ends it. */
    public record Watch(Object target) {

        public boolean countedDown() {
            return ((HandleWatch) target).countedDown();
        }

        /** Counts the handle down; false if that was done already. */
        public boolean countDown() {
            return ((HandleWatch) target).countDown();
        }
    }

    /** What the reclaimer holds between its two steps. */
    public static final class Taken {

        private final LogicalConnection handle;
        private final PhysicalConnection connection;

        private Taken(LogicalConnection handle, PhysicalConnection connection) {
            this.handle = handle;
            this.connection = connection;
        }

        /**
         * Returns the connection and leaves the handle as it was: what a close or abort on another
         * thread still sees if it read the handle just before the reclaimer moved its state.
         */
        public void giveBackLeavingTheHandle() {
            handle.pool.giveBack(connection);
        }

        /** Its second step: it ends the handle, unless that was done, and returns the connection. */
        public boolean reclaim() {
            try {
                return handle.reclaimTaken(connection);
            } finally {
                handle.pool.giveBack(connection);
            }
        }
    }
}
