package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * Reset on return between borrower A and borrower B of the same physical connection (DESIGN.md §4
 * "Reset on return"): a transaction A left open after a failed statement is rolled back, never
 * committed nor seen by B; the isolation and read-only setting A chose never reach B.
 */
class ResetOnReturnBetweenBorrowersTest extends PoolOperationsFixtures {

    @Test
    void postgresAbortedTransactionLeftOpenByANeverReachesBNorCommits() throws Exception {
        abortedTransactionLeftOpen(TestDatabase.POSTGRES.url(), "atkops-abort-pg", "SELECT 1/0");
    }

    @Test
    void mariaDbTransactionLeftOpenByAWithAFailedStatementNeverReachesBNorCommits() throws Exception {
        abortedTransactionLeftOpen(TestDatabase.MARIADB.url(), "atkops-abort-maria", "SELECT * FROM atkops_no_such_table");
    }

    /**
     * A: autocommit off, inserts, a statement fails, A closes its handle without commit or
     * rollback. B (maxSize=1: the same physical connection) must neither see A's row nor commit it
     * with its own work, and must not inherit an aborted transaction.
     */
    private void abortedTransactionLeftOpen(String url, String pool, String failing) throws Exception {
        String table = "atkops_abort_" + (url.contains("postgresql") ? "pg" : "maria");
        admin(url, "CREATE TABLE IF NOT EXISTS " + table + " (who varchar(10))", "DELETE FROM " + table);
        LoomPoolDataSource ds = ds(pool, url);
        ds.setMaxSize(1);
        ds.start();
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            exec(a, "INSERT INTO " + table + " VALUES ('a')");
            assertThat(catchThrowable(() -> text(a, failing))).isInstanceOf(SQLException.class);
        } // no commit, no rollback
        try (Connection b = ds.getConnection()) {
            assertThat(b.getAutoCommit()).isTrue();
            exec(b, "INSERT INTO " + table + " VALUES ('b')");
            assertThat(text(b, "SELECT count(*) FROM " + table + " WHERE who = 'a'")).isEqualTo("0");
        }
        assertThat(count(url, "SELECT count(*) FROM " + table + " WHERE who = 'a'")).as("A's row").isZero();
        assertThat(count(url, "SELECT count(*) FROM " + table + " WHERE who = 'b'")).as("B's row").isEqualTo(1);
    }

    @Test
    void postgresIsolationAndReadOnlySetByANeverReachB() throws Exception {
        String url = TestDatabase.POSTGRES.url();
        admin(url, "CREATE TABLE IF NOT EXISTS atkops_iso_pg (id int)", "DELETE FROM atkops_iso_pg");
        isolationAndReadOnly(url, "atkops-iso-pg", "SHOW transaction_isolation", "read committed",
                "SHOW transaction_read_only", "off", "atkops_iso_pg");
    }

    @Test
    void mariaDbIsolationAndReadOnlySetByANeverReachB() throws Exception {
        String url = TestDatabase.MARIADB.url();
        admin(url, "CREATE TABLE IF NOT EXISTS atkops_iso_maria (id int)", "DELETE FROM atkops_iso_maria");
        isolationAndReadOnly(url, "atkops-iso-maria", "SELECT @@session.tx_isolation", "REPEATABLE-READ",
                "SELECT @@session.tx_read_only", "0", "atkops_iso_maria");
    }

    /**
     * A: SERIALIZABLE, read-only, a transaction, commit, close. B on the same physical connection
     * (maxSize=1) must find the server's defaults again, and its write must commit.
     */
    private void isolationAndReadOnly(String url, String pool, String isoSql, String iso, String roSql, String ro,
            String table) throws Exception {
        LoomPoolDataSource ds = ds(pool, url);
        ds.setMaxSize(1);
        ds.start();
        try (Connection a = ds.getConnection()) {
            a.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            a.setReadOnly(true);
            a.setAutoCommit(false);
            text(a, "SELECT count(*) FROM " + table);
            assertThat(catchThrowable(() -> exec(a, "INSERT INTO " + table + " VALUES (9)")))
                    .as("A is read-only").isInstanceOf(SQLException.class);
            a.rollback();
        }
        try (Connection b = ds.getConnection()) {
            assertThat(text(b, isoSql)).isEqualTo(iso);
            assertThat(text(b, roSql)).isEqualTo(ro);
            exec(b, "INSERT INTO " + table + " VALUES (1)");
        }
        assertThat(count(url, "SELECT count(*) FROM " + table)).isEqualTo(1);
    }
}
