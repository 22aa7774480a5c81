package dev.loompool.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loompool.testsupport.PgBouncer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * Per-transaction isolation behind PgBouncer in transaction mode (DESIGN.md §7; issue 30) at
 * transaction boundaries the pool does not see: SQL text or a batch that ends one transaction and
 * begins the next, and the statements pgjdbc sends on its own for an updatable result set after the
 * commit. What runs in the new transaction runs at the level asked, or is refused; the plain driver
 * straight to PostgreSQL shows what {@code setTransactionIsolation} promises.
 */
class PgBouncerUnseenTransactionRunsAtTheLevelAskedTest extends PgBouncerLevelLedger {

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
}
