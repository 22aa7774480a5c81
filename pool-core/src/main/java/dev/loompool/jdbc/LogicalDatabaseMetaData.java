package dev.loompool.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Metadata of a logical connection; its result sets pin the connection until closed. */
final class LogicalDatabaseMetaData extends DelegatingDatabaseMetaData {

    private final LogicalConnection owner;

    LogicalDatabaseMetaData(LogicalConnection owner, DatabaseMetaData delegate) {
        super(delegate);
        this.owner = owner;
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
        LogicalResultSet wrapped = new LogicalResultSet(null, rs, owner, true);
        owner.track(wrapped);
        return wrapped;
    }

    @Override
    Connection connection() {
        return owner;
    }
}
