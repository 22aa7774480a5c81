package dev.loompool.jdbc.internal.driver;

import dev.loompool.jdbc.internal.sql.SqlDialect;
import dev.loompool.jdbc.internal.sql.SqlFunctions;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Reads the function table ({@link SqlFunctions}) from the database's own catalog, at start and
 * when it is old: PostgreSQL's {@link PostgresCatalog}, MySQL's and MariaDB's {@link MysqlCatalog};
 * other databases get the built-in table.
 */
public final class FunctionCatalog {

    private FunctionCatalog() {
    }

    /** The table for the database behind {@code c}: read from its catalog on PostgreSQL. */
    public static SqlFunctions read(Connection c, SqlDialect dialect) throws SQLException {
        return switch (dialect) {
            case POSTGRES -> readBounded(c);
            case MYSQL -> MysqlCatalog.read(c);
            default -> SqlFunctions.known(dialect);
        };
    }

    /**
     * PostgreSQL's read in a transaction of its own, rolled back, that waits at most a second for a
     * lock (a view's definition locks the tables it reads: a returning thread that holds an
     * exclusive lock on one through another handle must not wait for itself) and thirty seconds in all.
     */
    private static SqlFunctions readBounded(Connection c) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        try {
            if (autoCommit) {
                c.setAutoCommit(false);
            }
            try (java.sql.Statement st = c.createStatement()) { // SET LOCAL of both, in one round trip with the BEGIN
                st.execute("SELECT pg_catalog.set_config('lock_timeout', '1s', true), "
                        + "pg_catalog.set_config('statement_timeout', '30s', true)");
            }
            return PostgresCatalog.read(c);
        } finally {
            c.rollback();
            if (autoCommit) {
                c.setAutoCommit(true);
            }
        }
    }
}
