package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * Getters tell the truth, and setters reach the driver, once SQL has changed the session behind the
 * handle's back (SET autocommit, SET SESSION TRANSACTION, USE, SET search_path): a JDBC setter that
 * follows must not be skipped as "already so", and A commits and writes where the plain driver would.
 */
class SettersAfterSqlChangedTheSessionTest extends OnRealDatabases {

    @Test
    void pgSetSchemaAfterSqlSearchPathIsSkippedAndWritesGoToTheWrongSchema() throws SQLException {
        pgTable();
        String schema = "loompool_atk_s2_" + tag;
        pgAdmin("CREATE SCHEMA " + schema);
        pgCleanup.add("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        pgAdmin("CREATE TABLE " + schema + "." + table + " (id int PRIMARY KEY)");
        LoomPoolDataSource ds = pg(1);
        try (Connection a = ds.getConnection()) {
            run(a, "SET search_path TO " + schema);
            a.setSchema("public");
            run(a, "INSERT INTO " + table + " VALUES (1)");
        }
        assertThat(pgRows()).as("the row went to public." + table).isEqualTo(1);
    }

    /** SQL changed the session; the JDBC setter then believes it has nothing to do (cached current value). */
    @Test
    void mariaSetAutoCommitFalseAfterSqlAutocommitOnIsSkippedAndRollbackLosesNothing() throws SQLException {
        mariaTable();
        // reference: the plain driver
        try (Connection plain = TestDatabase.MARIADB.admin()) {
            plain.setAutoCommit(false);
            run(plain, "SET autocommit = 1");
            plain.setAutoCommit(false);
            run(plain, "INSERT INTO " + table + " (v) VALUES (1)");
            plain.rollback();
        }
        assertThat(mariaRows()).as("plain driver rolls back").isZero();
        LoomPoolDataSource ds = maria(1);
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            run(a, "SET autocommit = 1");
            a.setAutoCommit(false);
            run(a, "INSERT INTO " + table + " (v) VALUES (1)");
            a.rollback();
        }
        assertThat(mariaRows()).as("rolled back, as with the plain driver").isZero();
    }

    @Test
    void mariaSetTransactionIsolationAfterSqlChangedItIsSkipped() throws SQLException {
        String plainLevel;
        try (Connection plain = TestDatabase.MARIADB.admin()) {
            run(plain, "SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED");
            plain.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            plainLevel = str(plain, "SELECT @@session.tx_isolation");
        }
        assertThat(plainLevel).isEqualTo("REPEATABLE-READ");
        LoomPoolDataSource ds = maria(1);
        try (Connection a = ds.getConnection()) {
            run(a, "SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED");
            a.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            assertThat(str(a, "SELECT @@session.tx_isolation")).as("dirty reads after asking for REPEATABLE READ")
                    .isEqualTo(plainLevel);
        }
    }

    @Test
    void mariaSetCatalogAfterSqlUseIsSkippedAndWritesGoToTheWrongDatabase() throws SQLException {
        mariaTable();
        String db = "loompool_atk_db_" + tag;
        mariaAdmin("CREATE DATABASE " + db);
        mariaCleanup.add("DROP DATABASE IF EXISTS " + db);
        mariaAdmin("CREATE TABLE " + db + "." + table + " (id int AUTO_INCREMENT PRIMARY KEY, v int)");
        LoomPoolDataSource ds = maria(1);
        try (Connection a = ds.getConnection()) {
            run(a, "USE " + db);
            a.setCatalog("test");
            run(a, "INSERT INTO " + table + " (v) VALUES (1)");
            assertThat(mariaRows()).as("the row went to test." + table + " (DATABASE() is now "
                    + str(a, "SELECT DATABASE()") + ")").isEqualTo(1);
        }
    }

    /**
     * SQL SET autocommit=0, then JDBC setAutoCommit(true), which commits and turns autocommit on.
     * The pool thinks autocommit is already on and skips the driver call: the server stays in
     * autocommit=0 and everything is rolled back at close. Plain driver: both rows committed.
     */
    @Test
    void mariaSetAutoCommitTrueAfterSqlAutocommitOffIsSkippedAndWorkIsRolledBack() throws SQLException {
        mariaTable();
        try (Connection plain = TestDatabase.MARIADB.admin()) {
            run(plain, "SET autocommit = 0");
            run(plain, "INSERT INTO " + table + " (v) VALUES (1)");
            plain.setAutoCommit(true);
            run(plain, "INSERT INTO " + table + " (v) VALUES (2)");
        }
        assertThat(mariaRows()).as("plain driver").isEqualTo(2);
        mariaAdmin("DELETE FROM " + table);
        LoomPoolDataSource ds = maria(1);
        try (Connection a = ds.getConnection()) {
            run(a, "SET autocommit = 0");
            run(a, "INSERT INTO " + table + " (v) VALUES (1)");
            a.setAutoCommit(true);
            run(a, "INSERT INTO " + table + " (v) VALUES (2)");
        }
        assertThat(mariaRows()).as("committed, as with the plain driver").isEqualTo(2);
    }
}
