package dev.loompool.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loompool.testsupport.PgBouncer;
import dev.loompool.testsupport.Prerequisites;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Attacks on the per-transaction isolation behind a real PgBouncer in transaction mode (issue 30):
 * each probe asserts the SAFE behaviour, so a failing probe is a way a transaction runs at a weaker
 * isolation than the application asked for, without an error, or a level reaches another client.
 * Where it matters the same scenario runs on the plain driver straight to PostgreSQL, which gives
 * what {@code setTransactionIsolation} promises (pgjdbc sets it on the session).
 *
 * <p>Evidence is what the server saw: {@code current_setting('transaction_isolation')} written
 * into a row by the statement itself (a trigger for rows the driver writes on its own).
 */
class PgBouncerEachTransactionGetsItsLevelTest {

    private static final int SER = Connection.TRANSACTION_SERIALIZABLE;
    private static final String LEDGER = "INSERT INTO atkpgb_ledger VALUES (?, current_setting('transaction_isolation'))";

    private static String host;
    private static int port;
    private static String db;
    /** One server connection: the next client's transaction runs on the session the last one used. */
    private static PgBouncer single;

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

    private static LoomPoolDataSource pool(PgBouncer bouncer, String params) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setPoolName("atkpgb");
        ds.setJdbcUrl(bouncer.jdbcUrl(params));
        ds.setServerPooler(ServerPooler.PGBOUNCER_TRANSACTION);
        ds.setMinSize(0);
        ds.setMaxSize(1);
        ds.setAcquireTimeout(Duration.ofSeconds(30));
        return ds;
    }

    private static Connection direct() throws SQLException {
        return DriverManager.getConnection(TestDatabase.POSTGRES.url());
    }

    private static String one(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            assertTrue(rs.next(), sql);
            return rs.getString(1);
        }
    }

    private static void ledger(Connection c, String tag) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(LEDGER)) {
            ps.setString(1, tag);
            ps.executeUpdate();
        }
    }

    /** The isolation each committed ledger row of {@code tag} was written at, "" if none. */
    private static String written(String tag) throws SQLException {
        try (Connection c = TestDatabase.POSTGRES.admin();
                PreparedStatement ps = c.prepareStatement("SELECT coalesce(string_agg(iso, ','), '') FROM atkpgb_ledger WHERE tag = ?")) {
            ps.setString(1, tag);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    private static String acctIso() throws SQLException {
        try (Connection c = TestDatabase.POSTGRES.admin()) {
            return one(c, "SELECT coalesce(iso, '') || ':' || v FROM atkpgb_acct WHERE id = 1");
        }
    }

    /** What a plain client of the bouncer's server connection starts with: nothing left behind. */
    private static void nothingLeftOn(PgBouncer bouncer) throws SQLException {
        try (Connection plain = DriverManager.getConnection(bouncer.jdbcUrl("prepareThreshold=0"))) {
            assertEquals("read committed", one(plain, "SHOW default_transaction_isolation"), "left on the session");
            plain.setAutoCommit(false);
            assertEquals("read committed", one(plain, "SHOW transaction_isolation"), "a plain client's transaction");
            plain.rollback();
        }
    }

    // ---- transaction boundaries the pool does not see: SQL text that ends one and begins the next ----

    /**
     * A asks SERIALIZABLE, runs a statement, then one text "COMMIT; INSERT …": the INSERT runs
     * after A's COMMIT, in a transaction of its own. The plain driver runs it at SERIALIZABLE (the
     * session's level); behind the pool it must run at SERIALIZABLE too, or be refused.
     */
    @Test
    void commitThenStatementInOneText() throws Exception {
        String text = "COMMIT; INSERT INTO atkpgb_ledger VALUES ('%s', current_setting('transaction_isolation'))";
        try (Connection plain = direct()) {
            plain.setTransactionIsolation(SER);
            plain.setAutoCommit(false);
            one(plain, "SELECT 1");
            try (Statement s = plain.createStatement()) {
                s.execute(String.format(text, "plain-1"));
            }
            plain.commit();
        }
        assertEquals("serializable", written("plain-1"), "the plain driver, direct");
        try (LoomPoolDataSource ds = pool(single, ""); Connection a = ds.getConnection()) {
            a.setTransactionIsolation(SER);
            a.setAutoCommit(false);
            one(a, "SELECT 1");
            try (Statement s = a.createStatement()) {
                s.execute(String.format(text, "pool-1"));
            } catch (SQLException refused) {
                a.rollback(); // refused: safe, as long as nothing was written at a weaker level
            }
            a.commit();
        }
        String iso = written("pool-1");
        assertTrue(iso.isEmpty() || iso.equals("serializable"), "the INSERT after COMMIT ran at " + iso);
        nothingLeftOn(single);
    }

    /**
     * "COMMIT; BEGIN" in one text, then A's statements: they run in the transaction that BEGIN
     * opened, which the pool takes for the one it already sent the level in.
     */
    @Test
    void commitAndBeginInOneTextThenStatements() throws Exception {
        try (Connection plain = direct()) {
            plain.setTransactionIsolation(SER);
            plain.setAutoCommit(false);
            one(plain, "SELECT 1");
            try (Statement s = plain.createStatement()) {
                s.execute("COMMIT; BEGIN");
            }
            ledger(plain, "plain-2");
            plain.commit();
        }
        assertEquals("serializable", written("plain-2"), "the plain driver, direct");
        try (LoomPoolDataSource ds = pool(single, ""); Connection a = ds.getConnection()) {
            a.setTransactionIsolation(SER);
            a.setAutoCommit(false);
            one(a, "SELECT 1");
            try (Statement s = a.createStatement()) {
                s.execute("COMMIT; BEGIN");
                ledger(a, "pool-2");
                a.commit();
            } catch (SQLException refused) {
                a.rollback();
            }
        }
        String iso = written("pool-2");
        assertTrue(iso.isEmpty() || iso.equals("serializable"), "A's INSERT after COMMIT; BEGIN ran at " + iso);
    }

    /**
     * The same "COMMIT; BEGIN" on two handles at SERIALIZABLE, then the classic write skew (two
     * doctors on call, each takes one off): the plain driver fails the second commit with 40001;
     * behind the pool both commit, and nobody is on call.
     */
    @Test
    void commitAndBeginInOneTextAllowsAWriteSkew() throws Exception {
        assertEquals("40001", skewAfterCommitBegin(direct(), direct()), "the plain driver, direct");
        try (PgBouncer pair = PgBouncer.start(host, port, db, 2); LoomPoolDataSource ds = pool(pair, "")) {
            ds.setMaxSize(2);
            String behind = skewAfterCommitBegin(ds.getConnection(), ds.getConnection());
            // A refusal of the "COMMIT; BEGIN" is as safe as the 40001: nothing ran after it
            assertTrue(behind.equals("40001") || behind.equals("refused 0A000"),
                    "behind the pool: the write skew SERIALIZABLE forbids: " + behind);
        }
    }

    private static String skewAfterCommitBegin(Connection a, Connection b) throws SQLException {
        try (a; b; Connection admin = TestDatabase.POSTGRES.admin(); Statement reset = admin.createStatement()) {
            reset.execute("DROP TABLE IF EXISTS atkpgb_oncall");
            reset.execute("CREATE TABLE atkpgb_oncall (doctor int PRIMARY KEY, on_call boolean)");
            reset.execute("INSERT INTO atkpgb_oncall VALUES (1, true), (2, true)");
            for (Connection c : new Connection[] {a, b}) {
                c.setTransactionIsolation(SER);
                c.setAutoCommit(false);
                one(c, "SELECT 1");
                try (Statement s = c.createStatement()) {
                    s.execute("COMMIT; BEGIN");
                } catch (SQLException refused) {
                    c.rollback();
                    return "refused " + refused.getSQLState();
                }
            }
            assertEquals("2", one(a, "SELECT count(*) FROM atkpgb_oncall WHERE on_call"));
            assertEquals("2", one(b, "SELECT count(*) FROM atkpgb_oncall WHERE on_call"));
            try (Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
                sa.executeUpdate("UPDATE atkpgb_oncall SET on_call = false WHERE doctor = 1");
                sb.executeUpdate("UPDATE atkpgb_oncall SET on_call = false WHERE doctor = 2");
                a.commit();
                b.commit();
            } catch (SQLException e) {
                b.rollback();
                return e.getSQLState();
            }
            return "committed, on call: " + one(admin, "SELECT count(*) FROM atkpgb_oncall WHERE on_call");
        }
    }

    /** The updatable result set's insertRow after the commit: a row pgjdbc inserts on its own. */
    @Test
    void updatableResultSetInsertRowAfterCommit() throws Exception {
        try (LoomPoolDataSource ds = pool(single, ""); Connection c = ds.getConnection();
                Statement s = c.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_UPDATABLE,
                        ResultSet.HOLD_CURSORS_OVER_COMMIT)) {
            c.setTransactionIsolation(SER);
            c.setAutoCommit(false);
            try (ResultSet rs = s.executeQuery("SELECT id, v FROM atkpgb_acct")) {
                c.commit();
                rs.moveToInsertRow();
                rs.updateInt("id", 2);
                rs.updateInt("v", 9);
                rs.insertRow();
                c.commit();
            } catch (SQLException refused) {
                c.rollback();
            }
        }
        try (Connection admin = TestDatabase.POSTGRES.admin()) {
            String iso = one(admin, "SELECT coalesce(max(iso), '') FROM atkpgb_acct WHERE id = 2");
            assertTrue(iso.isEmpty() || iso.equals("serializable"), "the row inserted after the commit: " + iso);
        }
    }

    /** A batch whose middle statement is COMMIT: what follows it runs in a new transaction. */
    @Test
    void batchWithCommitInTheMiddle() throws Exception {
        try (Connection plain = direct()) {
            plain.setTransactionIsolation(SER);
            plain.setAutoCommit(false);
            try (Statement s = plain.createStatement()) {
                s.addBatch("INSERT INTO atkpgb_ledger VALUES ('plain-3a', current_setting('transaction_isolation'))");
                s.addBatch("COMMIT");
                s.addBatch("INSERT INTO atkpgb_ledger VALUES ('plain-3b', current_setting('transaction_isolation'))");
                s.executeBatch();
            }
            plain.commit();
        }
        assertEquals("serializable", written("plain-3b"), "the plain driver, direct");
        try (LoomPoolDataSource ds = pool(single, ""); Connection a = ds.getConnection()) {
            a.setTransactionIsolation(SER);
            a.setAutoCommit(false);
            try (Statement s = a.createStatement()) {
                s.addBatch("INSERT INTO atkpgb_ledger VALUES ('pool-3a', current_setting('transaction_isolation'))");
                s.addBatch("COMMIT");
                s.addBatch("INSERT INTO atkpgb_ledger VALUES ('pool-3b', current_setting('transaction_isolation'))");
                s.executeBatch();
                a.commit();
            } catch (SQLException refused) {
                a.rollback();
            }
        }
        for (String tag : new String[] {"pool-3a", "pool-3b"}) {
            String iso = written(tag);
            assertTrue(iso.isEmpty() || iso.equals("serializable"), tag + " ran at " + iso);
        }
    }

    /**
     * An updatable result set read in one transaction, updated after the commit: pgjdbc sends its
     * own BEGIN and UPDATE, which the pool does not see. The trigger stamps the level.
     */
    @Test
    void updatableResultSetUpdatedAfterCommit() throws Exception {
        String plainIso = updateAfterCommit(direct());
        assertEquals("serializable:7", plainIso, "the plain driver, direct");
        clean();
        try (LoomPoolDataSource ds = pool(single, "")) {
            String poolIso;
            try {
                poolIso = updateAfterCommit(ds.getConnection());
            } catch (SQLException refused) {
                poolIso = acctIso();
            }
            // refused: v is still 0, and iso what the trigger stamped on clean()'s INSERT (read committed)
            assertTrue(poolIso.endsWith(":0") || poolIso.equals("serializable:7"),
                    "the row pgjdbc updated after the commit, committed: " + poolIso);
        }
    }

    private static String updateAfterCommit(Connection c) throws SQLException {
        try (c; Statement s = c.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_UPDATABLE,
                ResultSet.HOLD_CURSORS_OVER_COMMIT)) {
            c.setTransactionIsolation(SER);
            c.setAutoCommit(false);
            try (ResultSet rs = s.executeQuery("SELECT id, v FROM atkpgb_acct WHERE id = 1")) {
                c.commit();
                assertTrue(rs.next());
                rs.updateInt("v", 7);
                rs.updateRow();
                c.commit();
            }
        }
        return acctIso();
    }

    // ---- the pool's idea of "the default" is one server connection's, read once ----------------------

    /**
     * Another client of the same PgBouncer (a service on a plain pool: pgjdbc's own
     * setTransactionIsolation) left SET SESSION CHARACTERISTICS … SERIALIZABLE on server connection
     * S1. The pool makes its connection while S1 is the only one, and takes SERIALIZABLE for the
     * default. A asks SERIALIZABLE: the pool sends nothing, and A's transaction runs on S2, which
     * PgBouncer opens while S1 is busy, at READ COMMITTED.
     */
    @Test
    void aDefaultReadFromALeakedSessionMakesTheAskedLevelSilent() throws Exception {
        try (PgBouncer pair = PgBouncer.start(host, port, db, 2);
                Connection leaker = DriverManager.getConnection(pair.jdbcUrl("prepareThreshold=0"))) {
            leaker.setTransactionIsolation(SER); // SET SESSION CHARACTERISTICS on S1, the only server connection
            String s1 = one(leaker, "SELECT pg_backend_pid()");
            try (LoomPoolDataSource ds = pool(pair, "")) {
                try (Connection warm = ds.getConnection()) {
                    warm.isValid(5); // the pool's first physical connection: its defaults read on S1
                }
                try (Connection busy = DriverManager.getConnection(pair.jdbcUrl("prepareThreshold=0"));
                        Connection a = ds.getConnection()) {
                    busy.setAutoCommit(false);
                    assertEquals(s1, one(busy, "SELECT pg_backend_pid()"), "busy holds S1");
                    // What Spring's DataSourceUtils reads before it decides to call setTransactionIsolation
                    assertEquals(Connection.TRANSACTION_READ_COMMITTED, a.getTransactionIsolation(),
                            "the default a fresh handle reports: the role's, not the one left on S1");
                    a.setTransactionIsolation(SER);
                    a.setAutoCommit(false);
                    String pid = one(a, "SELECT pg_backend_pid()");
                    assertTrue(!pid.equals(s1), "A runs on S2");
                    assertEquals("serializable", one(a, "SHOW transaction_isolation"),
                            "A asked SERIALIZABLE; the server connection it ran on has READ COMMITTED");
                    a.rollback();
                    busy.rollback();
                }
            }
        }
    }

    /** The same leak: in autocommit mode A's SERIALIZABLE statement must be refused, not run weaker. */
    @Test
    void aDefaultReadFromALeakedSessionLetsAutocommitRunWeaker() throws Exception {
        try (PgBouncer pair = PgBouncer.start(host, port, db, 2);
                Connection leaker = DriverManager.getConnection(pair.jdbcUrl("prepareThreshold=0"))) {
            leaker.setTransactionIsolation(SER);
            String s1 = one(leaker, "SELECT pg_backend_pid()");
            try (LoomPoolDataSource ds = pool(pair, "")) {
                try (Connection warm = ds.getConnection()) {
                    warm.isValid(5);
                }
                try (Connection busy = DriverManager.getConnection(pair.jdbcUrl("prepareThreshold=0"));
                        Connection a = ds.getConnection()) {
                    busy.setAutoCommit(false);
                    assertEquals(s1, one(busy, "SELECT pg_backend_pid()"));
                    a.setTransactionIsolation(SER);
                    String seen;
                    try {
                        seen = one(a, "SHOW transaction_isolation");
                    } catch (SQLException refused) {
                        seen = "refused " + refused.getSQLState();
                    }
                    assertTrue(seen.equals("serializable") || seen.equals("refused 0A000"),
                            "A's autocommit statement at SERIALIZABLE ran at " + seen);
                    busy.rollback();
                }
            }
        }
    }

    // ---- probes expected to hold -------------------------------------------------------------------

    /** A prepared statement made before the level and before autocommit off, as the first statement. */
    @Test
    void preparedBeforeTheLevelThenExecuted() throws Exception {
        try (LoomPoolDataSource ds = pool(single, ""); Connection a = ds.getConnection();
                PreparedStatement ps = a.prepareStatement(LEDGER)) {
            a.setTransactionIsolation(SER);
            a.setAutoCommit(false);
            ps.setString(1, "prep");
            ps.executeUpdate();
            a.commit();
            ps.setString(1, "prep");
            ps.addBatch();
            ps.setString(1, "prep");
            ps.addBatch();
            ps.executeBatch(); // a batch as the first statement of the next transaction
            a.commit();
        }
        assertEquals("serializable,serializable,serializable", written("prep"));
        nothingLeftOn(single);
    }

    /** executeQuery, execute, executeUpdate, executeLargeUpdate, a CallableStatement: each the first. */
    @Test
    void everyExecuteKindAsTheFirstStatement() throws Exception {
        try (LoomPoolDataSource ds = pool(single, ""); Connection a = ds.getConnection()) {
            a.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            a.setAutoCommit(false);
            assertEquals("repeatable read", one(a, "SHOW transaction_isolation"));
            a.commit();
            try (Statement s = a.createStatement()) {
                assertTrue(s.execute("SHOW transaction_isolation"));
                try (ResultSet rs = s.getResultSet()) {
                    rs.next();
                    assertEquals("repeatable read", rs.getString(1));
                }
                a.commit();
                s.executeUpdate("INSERT INTO atkpgb_ledger VALUES ('kinds', current_setting('transaction_isolation'))");
                a.commit();
                s.executeLargeUpdate("INSERT INTO atkpgb_ledger VALUES ('kinds', current_setting('transaction_isolation'))");
                a.commit();
            }
            // The JDBC call escape is refused behind the pooler (read as CALL, whose effect the pool
            // cannot see): loud, never weaker. A callable of plain SQL runs at the level.
            SQLException escape = assertThrows(SQLException.class, () -> a.prepareCall("{? = call current_setting(?)}"));
            assertEquals("0A000", escape.getSQLState());
            try (CallableStatement cs = a.prepareCall("SELECT current_setting(?)")) {
                cs.setString(1, "transaction_isolation");
                try (ResultSet rs = cs.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals("repeatable read", rs.getString(1));
                }
            }
            a.commit();
            try (Statement s = a.createStatement()) {
                assertTrue(s.execute("SELECT 1; SHOW transaction_isolation"));
                assertTrue(s.getMoreResults());
                try (ResultSet rs = s.getResultSet()) {
                    rs.next();
                    assertEquals("repeatable read", rs.getString(1), "a multi-statement text as the first");
                }
            }
            a.commit();
            assertEquals("SELECT 1", a.nativeSQL("SELECT 1"));
            assertEquals("repeatable read", one(a, "SHOW transaction_isolation"), "after nativeSQL");
            a.rollback();
        }
        assertEquals("repeatable read,repeatable read", written("kinds"));
    }

    /** COMMIT, ROLLBACK, END, ABORT as SQL text: the next statement is a new transaction, sent its level. */
    @Test
    void transactionEndsAsSqlText() throws Exception {
        try (LoomPoolDataSource ds = pool(single, ""); Connection a = ds.getConnection()) {
            a.setTransactionIsolation(SER);
            a.setAutoCommit(false);
            for (String end : new String[] {"COMMIT", "ROLLBACK", "END", "ABORT", "commit work", "/* x */ rollback"}) {
                ledger(a, "text");
                try (Statement s = a.createStatement()) {
                    s.execute(end);
                }
                assertEquals("serializable", one(a, "SHOW transaction_isolation"), "after " + end);
            }
            a.rollback();
            ledger(a, "chain");
            try (Statement s = a.createStatement()) {
                s.execute("COMMIT AND CHAIN");
            }
            assertEquals("serializable", one(a, "SHOW transaction_isolation"), "COMMIT AND CHAIN");
            try (Statement s = a.createStatement()) {
                s.execute("ROLLBACK AND CHAIN");
            }
            assertEquals("serializable", one(a, "SHOW transaction_isolation"), "ROLLBACK AND CHAIN");
            a.rollback();
        }
        nothingLeftOn(single);
    }

    /** A transaction ended by an error, a failed commit, setAutoCommit(true): the next is whole. */
    @Test
    void transactionsEndedOtherwise() throws Exception {
        try (LoomPoolDataSource ds = pool(single, ""); Connection a = ds.getConnection()) {
            a.setTransactionIsolation(SER);
            a.setAutoCommit(false);
            assertThrows(SQLException.class, () -> one(a, "SELECT 1/0"));
            assertThrows(SQLException.class, () -> one(a, "SELECT 1"), "aborted");
            a.rollback();
            assertEquals("serializable", one(a, "SHOW transaction_isolation"), "after the aborted one");
            a.commit();
            try (Statement s = a.createStatement()) {
                s.execute("INSERT INTO atkpgb_deferred VALUES (1), (1)");
            }
            assertThrows(SQLException.class, a::commit, "the deferred unique check fails the commit");
            assertEquals("serializable", one(a, "SHOW transaction_isolation"), "after the failed commit");
            ledger(a, "ac");
            a.setAutoCommit(true); // commits
            a.setAutoCommit(false);
            assertEquals("serializable", one(a, "SHOW transaction_isolation"), "after setAutoCommit(true/false)");
            Savepoint sp = a.setSavepoint();
            ledger(a, "sp");
            a.rollback(sp);
            try (ResultSet rs = a.getMetaData().getTables(null, "public", "atkpgb_ledger", null)) {
                assertTrue(rs.next());
            }
            assertEquals("serializable", one(a, "SHOW transaction_isolation"), "after a savepoint and metadata");
            a.commit();
            // The level changes between transactions, many times: each gets the one asked last.
            int[] levels = {Connection.TRANSACTION_READ_COMMITTED, SER, Connection.TRANSACTION_REPEATABLE_READ,
                Connection.TRANSACTION_READ_UNCOMMITTED, SER};
            String[] names = {"read committed", "serializable", "repeatable read", "read uncommitted", "serializable"};
            for (int i = 0; i < levels.length; i++) {
                a.setTransactionIsolation(levels[i]);
                assertEquals(names[i], one(a, "SHOW transaction_isolation"));
                a.commit();
            }
            a.setReadOnly(true);
            assertEquals("serializable", one(a, "SHOW transaction_isolation"));
            assertEquals("on", one(a, "SHOW transaction_read_only"));
            a.rollback();
        }
        assertEquals("serializable", written("ac"));
        assertEquals("", written("sp"));
        nothingLeftOn(single);
    }

    /** The application's own SQL that would set the level on the session is refused, never left behind. */
    @Test
    void sessionLevelSqlIsRefused() throws Exception {
        String[] texts = {
            "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE",
            "set session characteristics as transaction isolation level repeatable read",
            "SET default_transaction_isolation = 'serializable'",
            "SET SESSION default_transaction_isolation TO 'repeatable read'",
            "SELECT set_config('default_transaction_isolation', 'serializable', false)",
            "SELECT 1; SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE",
            "SET default_transaction_read_only = on",
            "RESET ALL",
        };
        try (LoomPoolDataSource ds = pool(single, ""); Connection a = ds.getConnection()) {
            for (String t : texts) {
                for (int mode = 0; mode < 3; mode++) {
                    try {
                        if (mode == 0) {
                            try (Statement s = a.createStatement()) {
                                s.execute(t);
                            }
                        } else if (mode == 1) {
                            try (PreparedStatement ps = a.prepareStatement(t)) {
                                ps.execute();
                            }
                        } else {
                            a.setAutoCommit(false);
                            try (Statement s = a.createStatement()) {
                                s.addBatch(t);
                                s.executeBatch();
                            }
                        }
                    } catch (SQLException refused) {
                        // expected: refused
                    } finally {
                        if (!a.getAutoCommit()) {
                            a.rollback();
                            a.setAutoCommit(true);
                        }
                    }
                    nothingLeftOn(single);
                }
            }
        }
    }

    /**
     * pgjdbc's autosave=always sends a SAVEPOINT before each statement, the pool's SET TRANSACTION
     * included: safe only if the transaction runs at the level asked or fails.
     */
    @Test
    void autosaveAlways() throws Exception {
        try (LoomPoolDataSource ds = pool(single, "autosave=always"); Connection a = ds.getConnection()) {
            a.setTransactionIsolation(SER);
            a.setAutoCommit(false);
            String seen;
            try {
                ledger(a, "autosave");
                seen = one(a, "SHOW transaction_isolation");
                a.commit();
            } catch (SQLException e) {
                seen = "failed " + e.getSQLState();
                a.rollback();
            }
            String iso = written("autosave");
            assertTrue(iso.isEmpty() || iso.equals("serializable"), "written at " + iso + " (" + seen + ")");
        }
    }

    /** Virtual threads: a handle begun on one, continued on another, and many at once, each its own level. */
    @Test
    void virtualThreadsEachGetTheirOwnLevel() throws Exception {
        try (PgBouncer pair = PgBouncer.start(host, port, db, 2); LoomPoolDataSource ds = pool(pair, "")) {
            ds.setMaxSize(4);
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int i = 0; i < 16; i++) {
                int n = i;
                threads.add(threadFactory().newThread(() -> {
                    try (Connection c = ds.getConnection()) {
                        for (int k = 0; k < 10; k++) {
                            boolean ser = (n + k) % 2 == 0;
                            c.setTransactionIsolation(ser ? SER : Connection.TRANSACTION_READ_COMMITTED);
                            c.setAutoCommit(false);
                            ledger(c, ser ? "vt-ser" : "vt-rc");
                            c.commit();
                            c.setAutoCommit(true);
                        }
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join(Duration.ofMinutes(2).toMillis());
            }
            assertTrue(failures.isEmpty(), failures.toString());
        }
        assertTrue(written("vt-ser").matches("(serializable,)*serializable"), written("vt-ser"));
        assertTrue(written("vt-rc").matches("(read committed,)*read committed"), written("vt-rc"));
        assertNotNull(single);
    }

    /** Virtual threads where the JDK has them (these sources compile for Java 17: by reflection). */
    private static java.util.concurrent.ThreadFactory threadFactory() {
        if (Runtime.version().feature() < 21) {
            return Thread::new;
        }
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            return (java.util.concurrent.ThreadFactory) Class.forName("java.lang.Thread$Builder").getMethod("factory")
                    .invoke(builder);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
