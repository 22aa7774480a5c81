package dev.loompool.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loompool.testsupport.PgBouncer;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Per-transaction isolation behind PgBouncer in transaction mode (DESIGN.md §7; issue 30): every
 * transaction of a handle runs at the level it asked, whatever its first statement (prepared
 * before, any execute kind, a callable, a multi-statement text), however the last one ended (SQL
 * COMMIT or ROLLBACK, an error, a failed commit, setAutoCommit), with pgjdbc's autosave and on
 * virtual threads; SQL that would set the level on the session is refused, never left behind.
 */
class PgBouncerEachTransactionGetsItsLevelTest extends PgBouncerLevelLedger {

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
