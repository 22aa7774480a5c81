package dev.loompool.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loompool.testsupport.PgBouncer;
import dev.loompool.testsupport.Prerequisites;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code setTransactionIsolation} behind a real PgBouncer in transaction mode (issue 30): the
 * handle sends its isolation as the first statement of each of its transactions, which PgBouncer
 * keeps with the transaction, instead of pgjdbc's {@code SET SESSION CHARACTERISTICS}, which would
 * stay on a server connection PgBouncer hands to other clients. The same scenarios run on the
 * plain driver straight to the server, where that is what the pool must match.
 */
class PgBouncerIsolationTest {

    /** One server connection: the next borrower's transaction runs on the session the last one used. */
    private static PgBouncer single;
    /** Two: two transactions at once, for the write skew. */
    private static PgBouncer pair;

    @BeforeAll
    static void startBouncers() throws Exception {
        Prerequisites.pgbouncer();
        Matcher m = Pattern.compile("//([^:/]+):(\\d+)/([^?]+)").matcher(TestDatabase.POSTGRES.url());
        assertTrue(m.find(), "the PostgreSQL test URL names host, port and database");
        single = PgBouncer.start(m.group(1), Integer.parseInt(m.group(2)), m.group(3), 1);
        pair = PgBouncer.start(m.group(1), Integer.parseInt(m.group(2)), m.group(3), 2);
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS pgbiso_ledger");
            s.execute("CREATE TABLE pgbiso_ledger (n int, isolation text)");
            s.execute("DROP TABLE IF EXISTS pgbiso_oncall");
            s.execute("CREATE TABLE pgbiso_oncall (doctor int PRIMARY KEY, on_call boolean)");
        }
    }

    @AfterAll
    static void stopBouncers() {
        if (single != null) {
            single.close();
        }
        if (pair != null) {
            pair.close();
        }
    }

    private static LoomPoolDataSource pool(PgBouncer bouncer, int maxSize) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setPoolName("pgbiso");
        ds.setJdbcUrl(bouncer.jdbcUrl(""));
        ds.setServerPooler(ServerPooler.PGBOUNCER_TRANSACTION);
        ds.setMinSize(0);
        ds.setMaxSize(maxSize);
        ds.setAcquireTimeout(Duration.ofSeconds(30));
        return ds;
    }

    private static String one(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            assertTrue(rs.next(), sql);
            return rs.getString(1);
        }
    }

    /**
     * Borrower A asks for SERIALIZABLE the way Spring's DataSourceTransactionManager does (read the
     * level, set it, then autocommit off; after the commit autocommit on, the old level back) and
     * runs two transactions; borrower B, next on the same server connection, runs at the default.
     */
    @Test
    void theIsolationLastsEachTransactionOfTheHandleAndNoLonger() throws Exception {
        try (LoomPoolDataSource ds = pool(single, 1)) {
            try (Connection a = ds.getConnection()) {
                int previous = a.getTransactionIsolation();
                assertEquals(Connection.TRANSACTION_READ_COMMITTED, previous);
                a.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
                assertEquals(Connection.TRANSACTION_SERIALIZABLE, a.getTransactionIsolation());
                assertTrue(a.getAutoCommit());
                a.setAutoCommit(false);
                for (int n = 1; n <= 2; n++) {
                    assertEquals("serializable", one(a, "SHOW transaction_isolation"), "transaction " + n);
                    try (Statement s = a.createStatement()) {
                        s.executeUpdate("INSERT INTO pgbiso_ledger VALUES (" + n
                                + ", current_setting('transaction_isolation'))");
                    }
                    assertEquals(Connection.TRANSACTION_SERIALIZABLE, a.getTransactionIsolation());
                    a.commit();
                }
                a.setAutoCommit(true);
                a.setTransactionIsolation(previous);
                assertEquals("read committed", one(a, "SHOW transaction_isolation"), "back at the default");
            }
            try (Connection b = ds.getConnection()) {
                assertEquals(Connection.TRANSACTION_READ_COMMITTED, b.getTransactionIsolation());
                assertEquals("read committed", one(b, "SHOW transaction_isolation"), "autocommit");
                assertEquals("read committed", one(b, "SHOW default_transaction_isolation"), "the session's own");
                b.setAutoCommit(false);
                assertEquals("read committed", one(b, "SHOW transaction_isolation"), "in a transaction");
                b.rollback();
            }
            // A handle that keeps SERIALIZABLE between its transactions does not lend it to another
            // one's transaction on the same server connection while it waits.
            try (Connection a = ds.getConnection(); Connection b = ds.getConnection()) {
                a.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
                a.setAutoCommit(false);
                assertEquals("serializable", one(a, "SHOW transaction_isolation"));
                a.commit(); // its connection goes back; b takes it (the pool has one)
                assertEquals("read committed", one(b, "SHOW transaction_isolation"));
                assertEquals("serializable", one(a, "SHOW transaction_isolation"), "a's next transaction");
                a.rollback();
            }
        }
        try (Connection admin = TestDatabase.POSTGRES.admin()) {
            assertEquals("1:serializable,2:serializable", one(admin,
                    "SELECT string_agg(n || ':' || isolation, ',' ORDER BY n) FROM pgbiso_ledger"),
                    "both of A's commits committed, each at SERIALIZABLE");
        }
        try (Connection plain = DriverManager.getConnection(single.jdbcUrl("prepareThreshold=0"))) {
            assertEquals("read committed", one(plain, "SHOW default_transaction_isolation"),
                    "nothing was set on PgBouncer's server connection");
        }
    }

    /**
     * The classic write skew: two doctors on call, each transaction sees two and takes one off.
     * Interleaved by hand on one thread, so the outcome does not depend on timing: at SERIALIZABLE
     * the second commit fails with 40001, as on the plain driver; at READ COMMITTED (the control)
     * both commit and nobody is on call.
     */
    @Test
    void aWriteSkewFailsAtSerializableAsOnThePlainDriver() throws Exception {
        try (LoomPoolDataSource ds = pool(pair, 2)) {
            assertEquals("40001", writeSkew(ds.getConnection(), ds.getConnection(), Connection.TRANSACTION_SERIALIZABLE));
            assertEquals("committed", writeSkew(ds.getConnection(), ds.getConnection(), Connection.TRANSACTION_READ_COMMITTED));
        }
        String direct = TestDatabase.POSTGRES.url();
        assertEquals("40001", writeSkew(DriverManager.getConnection(direct), DriverManager.getConnection(direct),
                Connection.TRANSACTION_SERIALIZABLE), "the plain driver");
    }

    /** Runs the write skew on {@code a} and {@code b} (closed after): the SQLState of the failure, or "committed". */
    private static String writeSkew(Connection a, Connection b, int level) throws SQLException {
        try (a; b; Connection admin = TestDatabase.POSTGRES.admin(); Statement reset = admin.createStatement()) {
            reset.execute("DELETE FROM pgbiso_oncall");
            reset.execute("INSERT INTO pgbiso_oncall VALUES (1, true), (2, true)");
            for (Connection c : new Connection[] {a, b}) {
                c.setTransactionIsolation(level);
                c.setAutoCommit(false);
            }
            assertEquals("2", one(a, "SELECT count(*) FROM pgbiso_oncall WHERE on_call"));
            assertEquals("2", one(b, "SELECT count(*) FROM pgbiso_oncall WHERE on_call"));
            String failed = null;
            try (Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
                sa.executeUpdate("UPDATE pgbiso_oncall SET on_call = false WHERE doctor = 1");
                sb.executeUpdate("UPDATE pgbiso_oncall SET on_call = false WHERE doctor = 2");
                a.commit();
                b.commit();
            } catch (SQLException e) {
                failed = e.getSQLState();
                b.rollback();
            }
            String onCall = one(admin, "SELECT count(*) FROM pgbiso_oncall WHERE on_call");
            assertEquals(failed == null ? "0" : "1", onCall, "a's commit stands; b's is all or nothing");
            return failed == null ? "committed" : failed;
        }
    }

    /** pgjdbc begins a read-only transaction with BEGIN READ ONLY; the isolation follows it. */
    @Test
    void readOnlyAndTheIsolationCombine() throws Exception {
        try (LoomPoolDataSource ds = pool(single, 1); Connection c = ds.getConnection()) {
            c.setReadOnly(true);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            c.setAutoCommit(false);
            assertEquals("repeatable read", one(c, "SHOW transaction_isolation"));
            assertEquals("on", one(c, "SHOW transaction_read_only"));
            try (Statement s = c.createStatement()) {
                SQLException write = assertThrows(SQLException.class,
                        () -> s.executeUpdate("INSERT INTO pgbiso_ledger VALUES (-1, 'read-only')"));
                assertEquals("25006", write.getSQLState(), "read_only_sql_transaction");
            }
            c.rollback();
            c.setReadOnly(false);
            assertEquals("repeatable read", one(c, "SHOW transaction_isolation"));
            assertEquals("off", one(c, "SHOW transaction_read_only"));
            c.rollback();
        }
    }

    /**
     * In autocommit mode there is no transaction to send the isolation in: a statement at a level
     * other than the default is refused rather than run at a weaker one. In the middle of a
     * transaction the level cannot change, as pgjdbc says on a plain connection.
     */
    @Test
    void autocommitStatementsAtAnotherLevelAreRefusedAndATransactionKeepsItsLevel() throws Exception {
        try (LoomPoolDataSource ds = pool(single, 1); Connection c = ds.getConnection()) {
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            SQLException refused = assertThrows(SQLException.class, () -> one(c, "SELECT 1"));
            assertEquals("0A000", refused.getSQLState());
            assertTrue(refused.getMessage().contains("pool 'pgbiso'") && refused.getMessage().contains("setAutoCommit(false)")
                    && refused.getMessage().contains("SERIALIZABLE"), refused.getMessage());
            c.setAutoCommit(false);
            assertEquals("1", one(c, "SELECT 1"));
            SQLException midway = assertThrows(SQLException.class,
                    () -> c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED));
            try (Connection plain = DriverManager.getConnection(TestDatabase.POSTGRES.url())) {
                plain.setAutoCommit(false);
                one(plain, "SELECT 1");
                assertEquals(assertThrows(SQLException.class,
                        () -> plain.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE)).getSQLState(),
                        midway.getSQLState(), "as the plain driver refuses it");
            }
            assertEquals(Connection.TRANSACTION_SERIALIZABLE, c.getTransactionIsolation());
            assertEquals("serializable", one(c, "SHOW transaction_isolation"));
            c.commit();
            c.setAutoCommit(true);
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            assertEquals("1", one(c, "SELECT 1"), "at the default, autocommit runs");
        }
    }

    /**
     * A transaction begun by something other than a statement of the handle (a metadata query, a
     * savepoint) before its first statement: PostgreSQL refuses the late SET TRANSACTION (25001),
     * so the caller sees an error instead of a transaction at a weaker level. The next one is whole.
     */
    @Test
    void aTransactionBegunBeforeTheFirstStatementFailsLoudlyRatherThanRunWeaker() throws Exception {
        try (LoomPoolDataSource ds = pool(single, 1); Connection c = ds.getConnection()) {
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            c.setAutoCommit(false);
            try (ResultSet rs = c.getMetaData().getTables(null, "public", "pgbiso_ledger", null)) {
                assertTrue(rs.next(), "the metadata query ran, and began the transaction");
            }
            assertEquals("25001", assertThrows(SQLException.class, () -> one(c, "SELECT 1")).getSQLState());
            c.rollback();
            assertEquals("serializable", one(c, "SHOW transaction_isolation"), "the next transaction");
            c.rollback();
            c.setSavepoint();
            assertEquals("25001", assertThrows(SQLException.class, () -> one(c, "SELECT 1")).getSQLState());
            c.rollback();
            assertEquals("serializable", one(c, "SHOW transaction_isolation"));
            c.rollback();
        }
    }
}
