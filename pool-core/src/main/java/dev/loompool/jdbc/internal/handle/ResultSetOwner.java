package dev.loompool.jdbc.internal.handle;

import java.sql.Statement;

/**
 * What a {@link LogicalResultSet} belongs to: a statement, which pins the connection while it is
 * open, or the connection's metadata, whose result sets pin by themselves. The result set reaches
 * its handle through a field here, on every call, without a virtual call.
 */
abstract class ResultSetOwner {

    /** The logical connection of the statement or metadata. */
    final LogicalConnection handle;

    ResultSetOwner(LogicalConnection handle) {
        this.handle = handle;
    }

    /** What the result set's {@code getStatement()} returns: the statement, or null for metadata. */
    abstract Statement statementOf();

    /** One of its result sets was closed by its user. */
    abstract void resultSetClosed(LogicalResultSet rs);

    /** Whether it was closed: then its result sets lend nothing (their connection may be another's now). */
    abstract boolean ownerClosed();
}
