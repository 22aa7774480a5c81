package dev.loompool.jdbc.internal.handle;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Metadata of a logical connection. It holds no physical connection: each call binds the handle
 * (or uses the one it holds), and only the result sets it returns pin, until they are closed. The
 * final class {@code DelegatingDatabaseMetaData}, generated at build time
 * (the codegen module's DelegateGenerator), forwards the other methods: {@link #meta()}, the call,
 * {@link #done()}.
 */
abstract class LogicalDatabaseMetaData extends ResultSetOwner implements DatabaseMetaData {

    /** What started the statement pin of a metadata result set, as the endpoint shows it. */
    private static final String METADATA = "DatabaseMetaData result set";

    LogicalDatabaseMetaData(LogicalConnection handle) {
        super(handle);
    }

    /**
     * The driver's metadata of the handle's physical connection (bound now if it was not), in a
     * run of the handle ({@link HandleLife#runStarted}): a statement closed on another thread
     * meanwhile leaves the release to the run's end, so the metadata query never lands on a
     * connection lent to somebody else. Paired with {@link #done()}, which every generated caller
     * reaches in its {@code finally}.
     */
    final DatabaseMetaData meta() throws SQLException {
        handle.runStarted();
        return handle.bindInRun().getMetaData();
    }

    /** After every bound call: the run ends, and the handle releases the physical connection if nothing pins it. */
    final void done() {
        handle.runEnded(); // what was deferred to this run: a give-back, or the release check
        handle.done();
    }

    final SQLException error(SQLException e) {
        return handle.error(e);
    }

    /** Wraps and tracks a driver result set: it has no statement to pin, so it pins until closed. */
    final ResultSet wrap(ResultSet rs) {
        if (rs == null) {
            return null;
        }
        DelegatingResultSet wrapped = new DelegatingResultSet(rs, this);
        handle.track(wrapped, METADATA);
        return wrapped;
    }

    /** Its other calls bind, which makes their thread the handle's user; this one does so itself. */
    final Connection connection() throws SQLException {
        handle.touchOwner();
        return handle;
    }

    @Override
    final Statement statementOf() {
        return null;
    }

    /** Metadata binds per call and is never closed: its result sets pin by themselves. */
    @Override
    final boolean ownerClosed() {
        return false;
    }

    @Override
    final void resultSetClosed(LogicalResultSet rs) {
        handle.untrack(rs);
    }

    /** The driver's own metadata object reaches into one physical connection: it is exposed. */
    @Override
    public final <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            handle.touchOwner();
            return iface.cast(this);
        }
        try {
            DatabaseMetaData raw = meta();
            return SessionCalls.unwrapped(handle, iface.isInstance(raw) ? iface.cast(raw) : raw.unwrap(iface), iface);
        } catch (SQLException e) {
            throw error(e);
        } finally {
            done();
        }
    }
}
