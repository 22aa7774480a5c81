package dev.loompool.jdbc;

import java.sql.SQLException;
import java.util.concurrent.Executor;

/**
 * The JDBC settings half of a logical connection: what the handle chose is remembered, applied at
 * once if it is bound, and replayed on every physical connection it binds later. Reads come from
 * the bound connection, else the handle's choice, else the pool's defaults, without binding.
 */
abstract class HandleSettings extends BindingConnection {

    /** The settings this handle chose; null until it chooses one (the common case costs nothing). */
    Settings own;

    /** The physical connection bound now, or null. */
    abstract PhysicalConnection physical();

    /** The defaults of the pool's connections, or null before the first connect. */
    abstract Settings learnedDefaults();

    abstract void ensureOpen() throws SQLException;

    final Settings settings() throws SQLException {
        ensureOpen();
        if (own == null) {
            own = new Settings();
        }
        return own;
    }

    /** Records that the handle chose a value, and applies it now if bound. */
    final void changed(Attr a) throws SQLException {
        own.marked.add(a);
        PhysicalConnection p = physical();
        if (p != null) {
            try {
                p.apply(own, a);
            } catch (SQLException e) {
                throw error(e);
            }
        }
    }

    /** Where to read a setting from: the bound connection, else the handle's choice, else the defaults. */
    final Settings view(Attr a) throws SQLException {
        ensureOpen();
        PhysicalConnection p = physical();
        if (p != null) {
            return p.current;
        }
        if (own != null && own.marked.contains(a)) {
            return own;
        }
        Settings defaults = learnedDefaults();
        if (defaults == null) { // no connection made yet: make one to learn them
            bind();
            defaults = physical().current;
            done();
        }
        return defaults;
    }

    @Override
    public void setTransactionIsolation(int level) throws SQLException {
        settings().isolation = level;
        changed(Attr.ISOLATION);
    }

    @Override
    public int getTransactionIsolation() throws SQLException {
        return view(Attr.ISOLATION).isolation;
    }

    @Override
    public void setReadOnly(boolean readOnly) throws SQLException {
        settings().readOnly = readOnly;
        changed(Attr.READ_ONLY);
    }

    @Override
    public boolean isReadOnly() throws SQLException {
        return view(Attr.READ_ONLY).readOnly;
    }

    @Override
    public void setCatalog(String catalog) throws SQLException {
        settings().catalog = catalog;
        changed(Attr.CATALOG);
    }

    @Override
    public String getCatalog() throws SQLException {
        return view(Attr.CATALOG).catalog;
    }

    @Override
    public void setSchema(String schema) throws SQLException {
        settings().schema = schema;
        changed(Attr.SCHEMA);
    }

    @Override
    public String getSchema() throws SQLException {
        return view(Attr.SCHEMA).schema;
    }

    @Override
    public void setHoldability(int holdability) throws SQLException {
        settings().holdability = holdability;
        changed(Attr.HOLDABILITY);
    }

    @Override
    public int getHoldability() throws SQLException {
        return view(Attr.HOLDABILITY).holdability;
    }

    @Override
    public void setNetworkTimeout(Executor executor, int milliseconds) throws SQLException {
        Settings s = settings();
        s.networkTimeout = milliseconds;
        s.networkExecutor = executor;
        changed(Attr.NETWORK_TIMEOUT);
    }

    @Override
    public int getNetworkTimeout() throws SQLException {
        return view(Attr.NETWORK_TIMEOUT).networkTimeout;
    }
}
