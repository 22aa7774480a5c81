package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.HandleInfo;
import dev.loompool.jdbc.PinReason;
import dev.loompool.jdbc.ReleaseMode;
import dev.loompool.jdbc.internal.physical.BindingHolder;
import dev.loompool.jdbc.internal.physical.JdbcPool;
import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;

/**
 * The handles as the pool's lifecycle sees them (the started pool, the reclaimer): a new one, and
 * the facts of one that holds a connection, found as that connection's {@link BindingHolder}. A
 * door of this room, so that the room above names no handle type; everything behind it stays
 * package-private.
 */
public final class Handles {

    private Handles() {
    }

    /** A new handle; in {@link ReleaseMode#CLOSE} it binds at once, as a classic pool's connection. */
    public static Connection open(JdbcPool pool) throws SQLException {
        LogicalConnection handle = new DelegatingConnection(pool); // counted from its first use
        if (pool.releaseMode == ReleaseMode.CLOSE) {
            try {
                handle.bind();
            } catch (SQLException e) {
                handle.close();
                throw e;
            }
        }
        return handle;
    }

    /** The facts of {@code handle}, which holds {@code p}, at {@code now} (the pool's clock): {@link HandleReport}. */
    public static HandleInfo report(BindingHolder handle, PhysicalConnection p, long now) {
        return HandleReport.of((LogicalConnection) handle, p, now);
    }

    /** Why {@code handle} is pinned now. */
    public static Set<PinReason> pinReasons(BindingHolder handle) {
        return ((LogicalConnection) handle).pinReasons();
    }

    /** The thread that used {@code handle} last. */
    public static Thread ownerThread(BindingHolder handle) {
        return ((LogicalConnection) handle).ownerThread();
    }

    /** Whether timed reason {@code r} holds {@code p} since a start on this binding ({@link HandleReport}). */
    public static boolean pinStartedOnThisBinding(PhysicalConnection p, PinReason r) {
        return HandleReport.startedOnThisBinding(p, r);
    }

    /** The masked first line of what started {@code r} on {@code p}, or null if that is not known. */
    public static String pinStatement(JdbcPool pool, PhysicalConnection p, PinReason r) {
        return HandleReport.statement(pool, p, r);
    }

    /** Where {@code p} was bound, when leak detection captured it. */
    public static String bindSite(JdbcPool pool, PhysicalConnection p) {
        return HandleReport.bindSite(pool, p);
    }
}
