package dev.loompool.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Metadata of a logical connection. It holds no physical connection: each call binds the handle
 * (or uses the one it holds), and only the result sets it returns pin, until they are closed.
 */
final class LogicalDatabaseMetaData extends BindingDatabaseMetaData {

    private final LogicalConnection owner;

    LogicalDatabaseMetaData(LogicalConnection owner) {
        this.owner = owner;
    }

    @Override
    DatabaseMetaData meta() throws SQLException {
        return owner.bind().getMetaData();
    }

    @Override
    void done() {
        owner.done();
    }

    @Override
    SQLException error(SQLException e) {
        return owner.error(e);
    }

    @Override
    ResultSet wrap(ResultSet rs) {
        if (rs == null) {
            return null;
        }
        MetaDataResultSet wrapped = new MetaDataResultSet(rs, owner);
        owner.track(wrapped);
        return wrapped;
    }

    /** Its other calls bind, which makes their thread the handle's user; this one does so itself. */
    @Override
    Connection connection() throws SQLException {
        owner.touchOwner();
        return owner;
    }

    /** The driver's own metadata object reaches into one physical connection: it is exposed. */
    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            owner.touchOwner();
            return iface.cast(this);
        }
        try {
            DatabaseMetaData raw = meta();
            return owner.exposed(iface.isInstance(raw) ? iface.cast(raw) : raw.unwrap(iface));
        } catch (SQLException e) {
            throw error(e);
        } finally {
            done();
        }
    }
}
