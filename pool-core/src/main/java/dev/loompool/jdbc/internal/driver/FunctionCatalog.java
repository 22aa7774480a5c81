package dev.loompool.jdbc.internal.driver;

import dev.loompool.jdbc.internal.sql.SqlDialect;
import dev.loompool.jdbc.internal.sql.SqlFunctions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

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
     * PostgreSQL's read: in a transaction of its own, rolled back, that waits at most a second for
     * a lock (a view's definition locks the tables it reads: a returning thread that holds an
     * exclusive lock on one through another handle must not wait for itself) and thirty seconds in
     * all. One text, one round trip (issue 39: it was eight); {@link SessionProbe} sends it after
     * its own query on a pool's first connection.
     */
    static final String POSTGRES_TEXT = "BEGIN; " + postgresAfterBegin();

    /** {@link #POSTGRES_TEXT} after its BEGIN: what a text that begins the transaction itself sends after its own statements. */
    static String postgresAfterBegin() {
        return "SELECT pg_catalog.set_config('lock_timeout', '1s', true), "
                + "pg_catalog.set_config('statement_timeout', '30s', true); " + PostgresCatalog.QUERIES + "; ROLLBACK";
    }

    /** The table from the results of {@link #postgresAfterBegin}, the next seven of {@code results}. */
    static SqlFunctions postgres(ResultSets results) throws SQLException {
        results.next().close(); // the two set_configs
        return PostgresCatalog.read(results);
    }

    /**
     * {@link #POSTGRES_TEXT} on {@code c}, in autocommit as the text runs its own transaction (a
     * transaction open on {@code c} is rolled back first, as the read's own rollback did before);
     * on an error, the text's transaction is rolled back.
     */
    private static SqlFunctions readBounded(Connection c) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        if (!autoCommit) {
            c.rollback();
            c.setAutoCommit(true);
        }
        try (Statement st = c.createStatement()) {
            st.execute(POSTGRES_TEXT);
            return postgres(new ResultSets(st));
        } catch (SQLException e) {
            rollbackText(c);
            throw e;
        } finally {
            if (!autoCommit) {
                c.setAutoCommit(false);
            }
        }
    }

    /** A ROLLBACK sent as SQL, after a text that began a transaction failed (the connection is in autocommit). */
    static void rollbackText(Connection c) {
        try (Statement st = c.createStatement()) {
            st.execute("ROLLBACK");
        } catch (SQLException ignored) {
            // broken: the caller's error says so, and the connection is retired
        }
    }
}
