package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.CircuitBreakerState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * Reset on return on MariaDB: session locks (GET_LOCK, LOCK TABLES, FLUSH … FOR EXPORT, BACKUP
 * LOCK), temporary tables, the next transaction's isolation and server prepared statements are gone
 * for borrower B after the reset connection; the session equals a fresh one from the same URL and init
 * SQL; a session the driver will not reset is closed, not reused; and a reset that fails for a reason
 * other than connectivity does not open the circuit breaker.
 */
class MariaDbSessionResetTest extends OnRealDatabases {

    /** FLUSH TABLES … FOR EXPORT locks tables for the session: the next borrower must not inherit them. */
    @Test
    void mariaFlushForExportDoesNotLockTheNextBorrower() throws SQLException {
        mariaTable();
        LoomPoolDataSource ds = maria(1);
        try (Connection a = ds.getConnection()) {
            run(a, "FLUSH TABLES " + table + " FOR EXPORT");
        }
        try (Connection b = ds.getConnection()) {
            run(b, "INSERT INTO " + table + " (v) VALUES (1)"); // on a session still under A's lock: refused
        }
    }

    /** The user's own useResetConnection=false is kept: then reset() does not reset, and the pool does not know. */
    @Test
    void mariaUseResetConnectionFalseLeaksUserVariables() throws SQLException {
        LoomPoolDataSource ds = pool(TestDatabase.MARIADB, 1, "&useResetConnection=false", null);
        mariaAThenNewB(ds, "the driver will not reset: closed, not reused", a -> {
            run(a, "SET @atk_reset = 'secret', SESSION sql_mode = 'ANSI_QUOTES'");
        }, b -> {
            assertThat(str(b, "SELECT CONCAT_WS(',', @atk_reset, IF(@@session.sql_mode LIKE '%ANSI%', 'ANSI', NULL))"))
                    .as("B sees A's session").isEmpty();
        });
    }

    /** After a reset the session equals a fresh one from the same URL (sessionVariables) and init SQL. */
    @Test
    void mariaResetRestoresSessionVariablesAndInitSql() throws SQLException {
        String suffix = "&sessionVariables=wait_timeout=1234,sql_mode='STRICT_ALL_TABLES'";
        String init = "SET SESSION lock_wait_timeout = 77";
        String probe = "SELECT CONCAT_WS('|', @@session.wait_timeout, @@session.sql_mode, @@session.lock_wait_timeout, "
                + "@@session.autocommit, @@session.tx_isolation, @@session.character_set_client, "
                + "@@session.collation_connection, @@session.time_zone, @@session.pseudo_thread_id = CONNECTION_ID(), "
                + "@@session.tx_read_only, DATABASE())";
        LoomPoolDataSource ds = pool(TestDatabase.MARIADB, 1, suffix, init);
        String fresh = resetLeavesAFreshSession(ds, TestDatabase.MARIADB, suffix, init, probe, a -> {
            run(a, "SET SESSION wait_timeout = 99, sql_mode = '', lock_wait_timeout = 5, time_zone = '+09:00', "
                    + "tx_read_only = 1");
            run(a, "SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE");
        });
        try (Connection b = ds.getConnection()) {
            // a second pool connection (the restore SQL was learnt on the first)
            assertThat(str(b, probe)).isEqualTo(fresh);
        }
    }

    /** XA START left open at close: the reset's ROLLBACK fails (XAE07), not a connectivity error. */
    @Test
    void mariaResetFailuresThatAreNotConnectivityDoNotOpenTheBreaker() throws SQLException {
        LoomPoolDataSource ds = maria(1);
        ds.setCircuitBreakerFailureThreshold(3);
        for (int i = 0; i < 6; i++) {
            try (Connection a = ds.getConnection()) {
                run(a, "XA START 'atk" + tag + i + "'");
                run(a, "SELECT 1");
            }
        }
        assertThat(ds.getPool().state()).isEqualTo(CircuitBreakerState.ACTIVE);
        try (Connection b = ds.getConnection()) {
            assertThat(num(b, "SELECT 1")).isEqualTo(1);
        }
    }

    /** GET_LOCK, LOCK TABLES, temp table, SET TRANSACTION (next one) are all gone for B. */
    @Test
    void mariaLocksAndTempTablesAreGoneForB() throws SQLException {
        mariaTable();
        LoomPoolDataSource ds = maria(1);
        long idA;
        try (Connection a = ds.getConnection()) {
            idA = myId(a);
            run(a, "SELECT GET_LOCK('atk_" + tag + "', 0)");
            run(a, "CREATE TEMPORARY TABLE atk_tmp (x int)");
            run(a, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE");
        }
        try (Connection admin = TestDatabase.MARIADB.admin()) {
            assertThat(num(admin, "SELECT IS_FREE_LOCK('atk_" + tag + "')")).isEqualTo(1);
        }
        try (Connection a = ds.getConnection()) {
            assertThat(myId(a)).isEqualTo(idA);
            run(a, "LOCK TABLES " + table + " WRITE");
        }
        try (Connection admin = TestDatabase.MARIADB.admin()) {
            run(admin, "SET SESSION lock_wait_timeout = 2");
            run(admin, "INSERT INTO " + table + " (v) VALUES (1)"); // would time out if still locked
        }
        try (Connection b = ds.getConnection()) {
            assertThat(myId(b)).isEqualTo(idA);
            assertThatThrownBy(() -> num(b, "SELECT count(*) FROM atk_tmp")).isInstanceOf(SQLException.class);
            run(b, "START TRANSACTION");
            String iso = str(b, "SELECT @@session.tx_isolation");
            run(b, "COMMIT");
            assertThat(iso).isEqualTo("REPEATABLE-READ");
        }
    }

    /** BACKUP LOCK (MariaDB 10.4+) is a session lock the classifier does not know. */
    @Test
    void mariaBackupLockIsKeptByThePooledConnection() throws SQLException {
        mariaTable();
        LoomPoolDataSource ds = maria(1);
        try (Connection a = ds.getConnection()) {
            run(a, "BACKUP LOCK " + table);
        }
        try (Connection admin = TestDatabase.MARIADB.admin()) {
            run(admin, "SET SESSION lock_wait_timeout = 2");
            run(admin, "ALTER TABLE " + table + " ADD COLUMN w int"); // blocks while the lock is held
        } finally {
            dataSources.forEach(LoomPoolDataSource::close);
        }
    }

    /** MariaDB server-side prepared statements across COM_RESET_CONNECTION. */
    @Test
    void mariaServerPreparedStatementsSurviveTheReset() throws SQLException {
        LoomPoolDataSource ds = pool(TestDatabase.MARIADB, 1, "&useServerPrepStmts=true", null);
        for (int round = 0; round < 3; round++) {
            try (Connection c = ds.getConnection()) {
                try (PreparedStatement ps = c.prepareStatement("SELECT ? + 1")) {
                    ps.setInt(1, round);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        assertThat(rs.getInt(1)).isEqualTo(round + 1);
                    }
                }
                run(c, "SET @atk_round = " + round);
            }
        }
    }
}
