package dev.loompool.jdbc;

import java.sql.CallableStatement;

/** A callable statement: everything it adds is plain delegation. */
final class LogicalCallableStatement extends DelegatingCallableStatement<CallableStatement> {

    LogicalCallableStatement(LogicalConnection owner, CallableStatement delegate, SqlEffect effect) {
        super(owner, delegate, effect);
    }
}
