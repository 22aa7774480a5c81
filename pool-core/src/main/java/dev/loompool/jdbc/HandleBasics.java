package dev.loompool.jdbc;

import java.sql.Connection;
import java.sql.SQLClientInfoException;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.util.Map;
import java.util.Properties;

/**
 * The plain calls of a logical connection that only need a physical connection for a moment, or
 * leave state on its session.
 */
abstract class HandleBasics extends HandleSettings {

    abstract boolean isOpen();

    /** Something changed the session behind the handle: pin until close, and reset before reuse. */
    abstract void sessionChanged();

    /** The driver's own object or state is handed out or changed: pin, and never reuse the connection. */
    abstract <T> T exposed(T value);

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

    /** Notes the calling thread as the handle's user; throws if the reclaimer took the handle. */
    abstract void touchOwner() throws SQLException;

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            touchOwner();
            return iface.cast(this);
        }
        Connection raw = bind();
        try {
            // Whoever holds the driver's object relies on this physical connection: pin it.
            return exposed(iface.isInstance(raw) ? iface.cast(raw) : raw.unwrap(iface));
        } catch (SQLException e) {
            throw error(e);
        } finally {
            done();
        }
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        if (iface.isInstance(this)) {
            touchOwner();
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
            exposed(map); // the driver keeps it, where no session reset reaches
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

    /** Client info lives on the session, or in the driver where no reset reaches: the connection is not reused. */
    private void clientInfo(ClientInfoCall call) throws SQLClientInfoException {
        try {
            call.apply(bind());
            sessionChanged();
            exposed(call);
        } catch (SQLClientInfoException e) {
            throw e;
        } catch (SQLException e) {
            throw new SQLClientInfoException(e.getMessage(), e.getSQLState(), e.getErrorCode(), Map.of(), error(e));
        }
    }
}
