package dev.loompool.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loompool.testsupport.PgBouncer;
import dev.loompool.testsupport.Prerequisites;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The limits of the per-transaction isolation behind a real PgBouncer in transaction mode (issue
 * 30, beside PgBouncerUnseenTransactionRunsAtTheLevelAskedTest): what is refused (a statement
 * after a transaction boundary in one text or batch, with autocommit off), what is not (the same
 * texts in autocommit mode, Spring's restore of the default level), and a chosen level sent even
 * when it is the default, since a server connection may have another left on it by a client of the
 * bouncer.
 */
class PgBouncerIsolationBoundariesTest {

    private static String host;
    private static int port;
    private static String db;
    /** One server connection per test: what a plain client leaves on it, the pool's next transaction gets. */
    private PgBouncer single;

    @BeforeAll
    static void tables() throws Exception {
        Prerequisites.pgbouncer();
        Matcher m = Pattern.compile("//([^:/]+):(\\d+)/([^?]+)").matcher(TestDatabase.POSTGRES.url());
        assertTrue(m.find(), "the PostgreSQL test URL names host, port and database");
        host = m.group(1);
        port = Integer.parseInt(m.group(2));
        db = m.group(3);
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS pgbfix_acct");
            s.execute("CREATE TABLE pgbfix_acct (id int PRIMARY KEY, v int, iso text)");
            s.execute("CREATE OR REPLACE FUNCTION pgbfix_stamp() RETURNS trigger LANGUAGE plpgsql AS "
                    + "$$BEGIN NEW.iso := current_setting('transaction_isolation'); RETURN NEW; END$$");
            s.execute("CREATE TRIGGER pgbfix_stamp BEFORE INSERT OR UPDATE ON pgbfix_acct "
                    + "FOR EACH ROW EXECUTE FUNCTION pgbfix_stamp()");
        }
    }

    @BeforeEach
    void start() throws Exception {
        single = PgBouncer.start(host, port, db, 1);
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement s = c.createStatement()) {
            s.execute("DELETE FROM pgbfix_acct");
            s.execute("INSERT INTO pgbfix_acct (id, v) VALUES (1, 0)");
        }
    }

    @AfterEach
    void stop() {
        single.close();
    }

    private LoomPoolDataSource pool() {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setPoolName("pgbfix");
        ds.setJdbcUrl(single.jdbcUrl(""));
        ds.setServerPooler(ServerPooler.PGBOUNCER_TRANSACTION);
        ds.setMinSize(0);
        ds.setMaxSize(1);
        ds.setAcquireTimeout(Duration.ofSeconds(30));
        return ds;
    }

    private static String one(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            assertTrue(rs.next(), sql);
            return rs.getString(1);
        }
    }

    private static String acct() throws SQLException {
        try (Connection c = TestDatabase.POSTGRES.admin()) {
            return one(c, "SELECT iso || ':' || v FROM pgbfix_acct WHERE id = 1");
        }
    }

    @Test
    void aChosenLevelEqualToTheDefaultIsSentAllTheSame() throws Exception {
        try (LoomPoolDataSource ds = pool()) {
            try (Connection warm = ds.getConnection()) {
                assertEquals(Connection.TRANSACTION_READ_COMMITTED, warm.getTransactionIsolation());
            }
            // A plain client of the bouncer leaves REPEATABLE READ on the only server connection
            try (Connection leaker = DriverManager.getConnection(single.jdbcUrl("prepareThreshold=0"))) {
                leaker.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                one(leaker, "SELECT 1");
            }
            try (Connection a = ds.getConnection()) {
                a.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED); // the pool's default
                a.setAutoCommit(false);
                assertEquals("read committed", one(a, "SHOW transaction_isolation"), "what A asked for");
                a.rollback();
            }
        }
    }

    @Test
    void springsRestoreOfTheDefaultLevelLeavesAutocommitStatementsAlone() throws Exception {
        try (LoomPoolDataSource ds = pool(); Connection a = ds.getConnection()) {
            int before = a.getTransactionIsolation();
            a.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            a.setAutoCommit(false);
            assertEquals("serializable", one(a, "SHOW transaction_isolation"));
            a.commit();
            a.setAutoCommit(true);
            SQLException refused = assertThrows(SQLException.class, () -> one(a, "SELECT 1"),
                    "SERIALIZABLE in autocommit mode has no transaction to be sent in");
            assertEquals("0A000", refused.getSQLState());
            a.setTransactionIsolation(before); // what Spring does after the transaction
            assertEquals("1", one(a, "SELECT 1"), "at the default, in autocommit mode");
        }
    }

    @Test
    void aTextThatRunsAStatementAfterCommitIsRefusedWithAutocommitOffOnly() throws Exception {
        try (LoomPoolDataSource ds = pool(); Connection a = ds.getConnection()) {
            try (Statement s = a.createStatement()) {
                s.execute("BEGIN; UPDATE pgbfix_acct SET v = 1 WHERE id = 1; COMMIT"); // autocommit: one text, its own transaction
            }
            assertEquals("read committed:1", acct());
            a.setAutoCommit(false);
            try (Statement s = a.createStatement()) {
                SQLException refused = assertThrows(SQLException.class,
                        () -> s.execute("COMMIT; UPDATE pgbfix_acct SET v = 2 WHERE id = 1"));
                assertEquals("0A000", refused.getSQLState());
                assertTrue(refused.getMessage().contains("serverPooler is PGBOUNCER_TRANSACTION"), refused.getMessage());
                s.execute("COMMIT"); // alone: the next statement begins the next transaction, sent its level
                assertEquals(1, s.executeUpdate("UPDATE pgbfix_acct SET v = 3 WHERE id = 1"));
            }
            a.commit();
        }
        assertEquals("read committed:3", acct());
    }

    @Test
    void aPreparedStatementThatCommitsIsRefusedAsABatch() throws Exception {
        try (LoomPoolDataSource ds = pool(); Connection a = ds.getConnection();
                PreparedStatement ps = a.prepareStatement("UPDATE pgbfix_acct SET v = v + ? WHERE id = 1; COMMIT")) {
            a.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            a.setAutoCommit(false);
            ps.setInt(1, 1);
            ps.addBatch();
            ps.setInt(1, 10);
            ps.addBatch(); // its UPDATE would run after the first COMMIT, in a transaction sent no level
            SQLException refused = assertThrows(SQLException.class, ps::executeBatch);
            assertEquals("0A000", refused.getSQLState());
            a.rollback();
            ps.setInt(1, 100);
            ps.execute(); // once: the COMMIT ends it, nothing follows
        }
        assertEquals("serializable:100", acct());
    }

    @Test
    void anUpdatableResultSetWritesAtTheLevelAsked() throws Exception {
        try (LoomPoolDataSource ds = pool(); Connection a = ds.getConnection();
                Statement s = a.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_UPDATABLE)) {
            a.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            a.setAutoCommit(false);
            try (ResultSet rs = s.executeQuery("SELECT id, v FROM pgbfix_acct WHERE id = 1")) {
                assertTrue(rs.next());
                rs.updateInt("v", 5);
                rs.updateRow();
                rs.refreshRow();
                assertEquals(5, rs.getInt("v"));
            }
            a.commit();
        }
        assertEquals("serializable:5", acct());
    }

    /** After the commit, pgjdbc looks the key up and updates in a transaction of its own: sent the level first. */
    @Test
    void anUpdatableResultSetUpdatedAfterTheCommitWritesAtTheLevelAsked() throws Exception {
        try (LoomPoolDataSource ds = pool(); Connection a = ds.getConnection();
                Statement s = a.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_UPDATABLE,
                        ResultSet.HOLD_CURSORS_OVER_COMMIT)) {
            a.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            a.setAutoCommit(false);
            try (ResultSet rs = s.executeQuery("SELECT id, v FROM pgbfix_acct WHERE id = 1")) {
                a.commit();
                assertTrue(rs.next());
                rs.updateInt("v", 7);
                rs.updateRow();
                a.commit();
            }
        }
        assertEquals("serializable:7", acct());
    }
}
