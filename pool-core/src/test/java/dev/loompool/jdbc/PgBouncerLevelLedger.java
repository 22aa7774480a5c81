package dev.loompool.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * A real PgBouncer in transaction mode with one server connection, a pool behind it, the plain
 * driver straight to PostgreSQL, and a ledger of the isolation each row was written at: the
 * evidence is what the server saw, {@code current_setting('transaction_isolation')} written into a
 * row by the statement itself (a trigger for rows the driver writes on its own).
 */
abstract class PgBouncerLevelLedger {

    static final int SER = Connection.TRANSACTION_SERIALIZABLE;
    static final String LEDGER = "INSERT INTO atkpgb_ledger VALUES (?, current_setting('transaction_isolation'))";

    static String host;
    static int port;
    static String db;
    /** One server connection: the next client's transaction runs on the session the last one used. */
    static PgBouncer single;

    @BeforeAll
    static void start() throws Exception {
        Prerequisites.pgbouncer();
        Matcher m = Pattern.compile("//([^:/]+):(\\d+)/([^?]+)").matcher(TestDatabase.POSTGRES.url());
        assertTrue(m.find(), "the PostgreSQL test URL names host, port and database");
        host = m.group(1);
        port = Integer.parseInt(m.group(2));
        db = m.group(3);
        single = PgBouncer.start(host, port, db, 1);
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS atkpgb_ledger");
            s.execute("CREATE TABLE atkpgb_ledger (tag text, iso text)");
            s.execute("DROP TABLE IF EXISTS atkpgb_acct");
            s.execute("CREATE TABLE atkpgb_acct (id int PRIMARY KEY, v int, iso text)");
            s.execute("CREATE OR REPLACE FUNCTION atkpgb_stamp() RETURNS trigger LANGUAGE plpgsql AS "
                    + "$$BEGIN NEW.iso := current_setting('transaction_isolation'); RETURN NEW; END$$");
            s.execute("CREATE TRIGGER atkpgb_stamp BEFORE INSERT OR UPDATE ON atkpgb_acct "
                    + "FOR EACH ROW EXECUTE FUNCTION atkpgb_stamp()");
            s.execute("DROP TABLE IF EXISTS atkpgb_deferred");
            s.execute("CREATE TABLE atkpgb_deferred (k int UNIQUE DEFERRABLE INITIALLY DEFERRED)");
        }
    }

    @AfterAll
    static void stop() {
        if (single != null) {
            single.close();
        }
    }

    @BeforeEach
    void clean() throws SQLException {
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement s = c.createStatement()) {
            s.execute("DELETE FROM atkpgb_ledger");
            s.execute("DELETE FROM atkpgb_acct");
            s.execute("INSERT INTO atkpgb_acct (id, v) VALUES (1, 0)");
            s.execute("DELETE FROM atkpgb_deferred");
        }
    }

    static LoomPoolDataSource pool(PgBouncer bouncer, String params) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setPoolName("atkpgb");
        ds.setJdbcUrl(bouncer.jdbcUrl(params));
        ds.setServerPooler(ServerPooler.PGBOUNCER_TRANSACTION);
        ds.setMinSize(0);
        ds.setMaxSize(1);
        ds.setAcquireTimeout(Duration.ofSeconds(30));
        return ds;
    }

    static Connection direct() throws SQLException {
        return DriverManager.getConnection(TestDatabase.POSTGRES.url());
    }

    static String one(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            assertTrue(rs.next(), sql);
            return rs.getString(1);
        }
    }

    static void ledger(Connection c, String tag) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(LEDGER)) {
            ps.setString(1, tag);
            ps.executeUpdate();
        }
    }

    /** The isolation each committed ledger row of {@code tag} was written at, "" if none. */
    static String written(String tag) throws SQLException {
        try (Connection c = TestDatabase.POSTGRES.admin();
                PreparedStatement ps = c.prepareStatement("SELECT coalesce(string_agg(iso, ','), '') FROM atkpgb_ledger WHERE tag = ?")) {
            ps.setString(1, tag);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    static String acctIso() throws SQLException {
        try (Connection c = TestDatabase.POSTGRES.admin()) {
            return one(c, "SELECT coalesce(iso, '') || ':' || v FROM atkpgb_acct WHERE id = 1");
        }
    }

    /** What a plain client of the bouncer's server connection starts with: nothing left behind. */
    static void nothingLeftOn(PgBouncer bouncer) throws SQLException {
        try (Connection plain = DriverManager.getConnection(bouncer.jdbcUrl("prepareThreshold=0"))) {
            assertEquals("read committed", one(plain, "SHOW default_transaction_isolation"), "left on the session");
            plain.setAutoCommit(false);
            assertEquals("read committed", one(plain, "SHOW transaction_isolation"), "a plain client's transaction");
            plain.rollback();
        }
    }
}
