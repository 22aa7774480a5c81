package dev.loompool.jdbc;

import java.sql.ResultSet;

/**
 * A result set of {@code DatabaseMetaData}: it has no statement to pin the connection, so the
 * handle tracks it, and it pins until closed.
 */
final class MetaDataResultSet extends LogicalResultSet {

    private final LogicalConnection owner;

    MetaDataResultSet(ResultSet delegate, LogicalConnection owner) {
        super(delegate, null);
        this.owner = owner;
    }

    @Override
    LogicalConnection owner() {
        return owner;
    }

    @Override
    void closed() {
        owner.untrack(this);
    }
}
