package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Getters tell the truth (DESIGN.md §4, issue 26 item 3): once SQL has changed the session,
 * {@code getAutoCommit()}, {@code getTransactionIsolation()}, {@code getCatalog()},
 * {@code getSchema()} and {@code isReadOnly()} answer as the plain driver does on the real
 * servers, and code that decides on their answer (commit if autocommit is off, raise the isolation
 * if it is too low, Spring's "set it if it differs") does what it does on the plain driver.
 */
class GettersTellTheTruthTest extends OnRealDatabases {

    @FunctionalInterface
    interface Getter {
        Object read(Connection c) throws SQLException;
    }

    /** The same session SQL, then the same getter, on the plain driver and on a pool handle: the same answer. */
    private void sameAsThePlainDriver(TestDatabase db, LoomPoolDataSource ds, String sql, Getter getter)
            throws SQLException {
        Object plain;
        try (Connection c = db.admin()) {
            run(c, sql);
            plain = getter.read(c);
        }
        try (Connection c = ds.getConnection()) {
            Object before = getter.read(c); // the pool's memory is primed first, as an application's would be
            run(c, sql);
            assertThat(getter.read(c)).as("after %s (before: %s)", sql, before).isEqualTo(plain);
        }
    }

    @Test
    void afterSessionSqlOnMariaDbEveryGetterAnswersAsThePlainDriver() throws SQLException {
        String other = "loompool_g_" + tag;
        mariaAdmin("CREATE DATABASE " + other);
        mariaCleanup.add("DROP DATABASE IF EXISTS " + other);
        LoomPoolDataSource ds = maria(1);
        sameAsThePlainDriver(TestDatabase.MARIADB, ds, "SET autocommit=0", Connection::getAutoCommit);
        sameAsThePlainDriver(TestDatabase.MARIADB, ds, "SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE",
                Connection::getTransactionIsolation);
        sameAsThePlainDriver(TestDatabase.MARIADB, ds, "SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED",
                Connection::getTransactionIsolation);
        sameAsThePlainDriver(TestDatabase.MARIADB, ds, "USE " + other, Connection::getCatalog);
        sameAsThePlainDriver(TestDatabase.MARIADB, ds, "SET SESSION TRANSACTION READ ONLY", Connection::isReadOnly);
        assertThat(ds.getPool().stats().inUse()).isZero();
    }

    @Test
    void afterSessionSqlOnPostgresEveryGetterAnswersAsThePlainDriver() throws SQLException {
        String schema = "loompool_g_" + tag;
        pgAdmin("CREATE SCHEMA " + schema);
        pgCleanup.add("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        LoomPoolDataSource ds = pg(1);
        sameAsThePlainDriver(TestDatabase.POSTGRES, ds,
                "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE",
                Connection::getTransactionIsolation);
        sameAsThePlainDriver(TestDatabase.POSTGRES, ds, "SET default_transaction_isolation = 'repeatable read'",
                Connection::getTransactionIsolation);
        sameAsThePlainDriver(TestDatabase.POSTGRES, ds, "SET search_path = " + schema, Connection::getSchema);
        sameAsThePlainDriver(TestDatabase.POSTGRES, ds, "SET default_transaction_read_only = on", Connection::isReadOnly);
        sameAsThePlainDriver(TestDatabase.POSTGRES, ds, "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY",
                Connection::isReadOnly);
        assertThat(ds.getPool().stats().inUse()).isZero();
    }

    /** Liquibase's close path: "if (!c.getAutoCommit()) c.commit()". */
    private static void insertAfterSqlTurnedAutocommitOffAndCommitIfItIsOff(Connection c, String table)
            throws SQLException {
        run(c, "SET autocommit=0");
        run(c, "INSERT INTO " + table + " (v) VALUES (1)");
        if (!c.getAutoCommit()) {
            c.commit();
        }
    }

    @Test
    void aLiquibaseStyleCommitIfAutocommitIsOffKeepsARowInsertedAfterSqlTurnedAutocommitOff() throws SQLException {
        mariaTable();
        try (Connection plain = TestDatabase.MARIADB.admin()) {
            insertAfterSqlTurnedAutocommitOffAndCommitIfItIsOff(plain, table);
        }
        assertThat(mariaRows()).as("the plain driver commits A's row").isEqualTo(1);
        LoomPoolDataSource ds = maria(1);
        try (Connection a = ds.getConnection()) {
            insertAfterSqlTurnedAutocommitOffAndCommitIfItIsOff(a, table);
        }
        try (Connection b = ds.getConnection()) {
            assertThat(num(b, "SELECT count(*) FROM " + table)).as("B, on A's physical connection, sees A's row")
                    .isEqualTo(2);
        }
        assertThat(mariaRows()).as("what A really committed").isEqualTo(2);
    }

    /**
     * A lowers the isolation by SQL, then raises it again "if needed"; B has an uncommitted row in
     * A's table. What A reads of B's row is what the plain driver reads: nothing (no dirty read).
     */
    private long rowsReadAfterRaisingTheIsolationIfNeeded(Connection a, Connection b) throws SQLException {
        run(a, "SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED");
        if (a.getTransactionIsolation() < Connection.TRANSACTION_READ_COMMITTED) {
            a.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
        b.setAutoCommit(false);
        run(b, "INSERT INTO " + table + " (v) VALUES (7)"); // uncommitted
        try {
            return num(a, "SELECT count(*) FROM " + table);
        } finally {
            b.rollback();
        }
    }

    @Test
    void raisingTheIsolationIfNeededAfterSqlLoweredItPreventsTheDirtyReadAsOnThePlainDriver() throws SQLException {
        mariaTable();
        List<Long> seen = new ArrayList<>();
        try (Connection plain = TestDatabase.MARIADB.admin(); Connection b = TestDatabase.MARIADB.admin()) {
            seen.add(rowsReadAfterRaisingTheIsolationIfNeeded(plain, b));
        }
        LoomPoolDataSource ds = maria(1);
        try (Connection a = ds.getConnection(); Connection b = TestDatabase.MARIADB.admin()) {
            seen.add(rowsReadAfterRaisingTheIsolationIfNeeded(a, b));
        }
        assertThat(seen).as("rows A reads of B's uncommitted insert: plain driver, then pool").containsExactly(0L, 0L);
    }

    /** Spring's DataSourceUtils.prepareConnectionForTransaction: set the isolation only if it differs. */
    private static String isolationRunAfterSettingItOnlyIfItDiffers(Connection c, String sessionSql, String show)
            throws SQLException {
        run(c, sessionSql);
        if (c.getTransactionIsolation() != Connection.TRANSACTION_READ_COMMITTED) {
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
        return str(c, show);
    }

    @Test
    void springsSetTheIsolationIfItDiffersRunsReadCommittedAfterSqlChoseSerializable() throws SQLException {
        String pgSql = "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE";
        String pgShow = "SHOW transaction_isolation";
        String mariaSql = "SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE";
        String mariaShow = "SELECT @@session.tx_isolation";
        String pgPlain;
        String mariaPlain;
        try (Connection c = TestDatabase.POSTGRES.admin()) {
            pgPlain = isolationRunAfterSettingItOnlyIfItDiffers(c, pgSql, pgShow);
        }
        try (Connection c = TestDatabase.MARIADB.admin()) {
            mariaPlain = isolationRunAfterSettingItOnlyIfItDiffers(c, mariaSql, mariaShow);
        }
        assertThat(List.of(pgPlain, mariaPlain)).containsExactly("read committed", "READ-COMMITTED");
        try (Connection c = pg(1).getConnection()) {
            assertThat(isolationRunAfterSettingItOnlyIfItDiffers(c, pgSql, pgShow)).isEqualTo(pgPlain);
        }
        try (Connection c = maria(1).getConnection()) {
            assertThat(isolationRunAfterSettingItOnlyIfItDiffers(c, mariaSql, mariaShow)).isEqualTo(mariaPlain);
        }
    }

    @Test
    void aSetterAfterTheGetterAskedTheDriverStillApplies() throws SQLException {
        LoomPoolDataSource ds = maria(1);
        try (Connection c = ds.getConnection()) {
            run(c, "SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE");
            assertThat(c.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_SERIALIZABLE);
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            assertThat(str(c, "SELECT @@session.tx_isolation")).isEqualTo("READ-COMMITTED");
            assertThat(c.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_READ_COMMITTED);
            run(c, "SET autocommit=0");
            assertThat(c.getAutoCommit()).isFalse();
            c.setAutoCommit(true);
            assertThat(num(c, "SELECT @@autocommit")).isEqualTo(1);
        }
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, "SELECT @@session.tx_isolation")).as("B gets a clean session").isEqualTo("REPEATABLE-READ");
            assertThat(b.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_REPEATABLE_READ);
            assertThat(b.getAutoCommit()).isTrue();
        }
    }
}
