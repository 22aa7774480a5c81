package dev.loompool.jdbc;

import java.sql.Connection;
import java.sql.SQLClientInfoException;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.util.ArrayList;
import java.util.Map;
import java.util.Properties;

/**
 * The bookkeeping half of a logical connection: the statements and metadata result sets it has
 * open (each pins the physical connection until closed), and the plain calls that only need a
 * connection for a moment.
 */
abstract class HandleBasics extends HandleSettings {

    /**
     * The first open statement, then the others: most handles have one at a time, and no list.
     * No counters beside them: every field here is paid for on each {@code getConnection}.
     */
    private Tracked first;
    private ArrayList<Tracked> more;

    abstract boolean isOpen();

    /** Something changed the session behind the handle: pin until close, and reset before reuse. */
    abstract void sessionChanged();

    final int openStatements() {
        return (first == null ? 0 : 1) + (more == null ? 0 : more.size());
    }

    final void track(Tracked t) {
        if (first == null) {
            first = t;
            return;
        }
        if (more == null) {
            more = new ArrayList<>(4);
        }
        more.add(t);
    }

    final void untrack(Tracked t) {
        if (first == t) {
            first = null;
        } else if (!removeOther(t)) {
            return; // already dropped with a broken connection
        }
        done();
    }

    /** Removes {@code t} by identity (wrappers may delegate equals), moving the last one into its place. */
    private boolean removeOther(Tracked t) {
        if (more == null) {
            return false;
        }
        for (int i = 0, n = more.size(); i < n; i++) {
            if (more.get(i) == t) {
                more.set(i, more.get(n - 1));
                more.remove(n - 1);
                return true;
            }
        }
        return false;
    }

    /** Closes every tracked statement and result set, quietly: the connection is going. */
    final void closeTracked() {
        Tracked f = first;
        first = null;
        if (f != null) {
            f.closeQuietly();
        }
        if (more != null) {
            more.forEach(Tracked::closeQuietly);
            more.clear();
        }
    }

    @Override
    public SQLWarning getWarnings() throws SQLException {
        ensureOpen();
        PhysicalConnection p = physical();
        return p == null ? null : p.raw.getWarnings();
    }

    @Override
    public void clearWarnings() throws SQLException {
        ensureOpen();
        PhysicalConnection p = physical();
        if (p != null) {
            p.raw.clearWarnings();
        }
    }

    @Override
    public boolean isValid(int timeout) throws SQLException {
        if (timeout < 0) {
            throw new SQLException("timeout must be >= 0, was " + timeout, "HY092");
        }
        if (!isOpen()) {
            return false;
        }
        try {
            return bind().isValid(timeout);
        } catch (SQLException e) {
            error(e);
            return false;
        } finally {
            done();
        }
    }

    /** The pool brackets requests itself; a caller's hints change nothing. */
    @Override
    public void beginRequest() {
    }

    @Override
    public void endRequest() {
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        Connection raw = bind();
        try {
            // Whoever holds the driver's object relies on this physical connection: pin it.
            return pinned(iface.isInstance(raw) ? iface.cast(raw) : raw.unwrap(iface));
        } catch (SQLException e) {
            throw error(e);
        } finally {
            done();
        }
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return true;
        }
        try {
            return bind().isWrapperFor(iface);
        } catch (SQLException e) {
            throw error(e);
        } finally {
            done();
        }
    }

    @Override
    public void setTypeMap(Map<String, Class<?>> map) throws SQLException {
        try {
            bind().setTypeMap(map);
            sessionChanged();
        } catch (SQLException e) {
            throw error(e);
        }
    }

    @Override
    public void setClientInfo(String name, String value) throws SQLClientInfoException {
        clientInfo(c -> c.setClientInfo(name, value));
    }

    @Override
    public void setClientInfo(Properties properties) throws SQLClientInfoException {
        clientInfo(c -> c.setClientInfo(properties));
    }

    @FunctionalInterface
    private interface ClientInfoCall {
        void apply(Connection raw) throws SQLException;
    }

    /** Client info lives on the session: it pins, and the session reset clears it. */
    private void clientInfo(ClientInfoCall call) throws SQLClientInfoException {
        try {
            call.apply(bind());
            sessionChanged();
        } catch (SQLClientInfoException e) {
            throw e;
        } catch (SQLException e) {
            throw new SQLClientInfoException(e.getMessage(), e.getSQLState(), e.getErrorCode(), Map.of(), error(e));
        }
    }
}
