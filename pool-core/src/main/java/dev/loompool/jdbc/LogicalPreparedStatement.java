package dev.loompool.jdbc;

import java.sql.PreparedStatement;

/**
 * A prepared statement: its SQL was classified once, at prepare time, and the generated methods
 * apply the effect at each execution. The level between the statement and the callable one.
 */
class LogicalPreparedStatement<S extends PreparedStatement> extends DelegatingPreparedStatement<S> {

    LogicalPreparedStatement(LogicalConnection owner, S delegate, SqlEffect effect) {
        super(owner, delegate, effect);
    }
}
