package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Attacks on the handle's cold paths that moved into helper classes (HandleSettings, SessionCalls,
 * StatementChecks, HandleEnds, TransactionCalls): borrower A does something through one
 * of them; what does borrower B see, and what did A really commit? Each probe compares with the
 * plain driver where the answer is the driver's.
 */
class HandleSettersAnswerAsThePlainDriverTest extends BorrowerScenarios {

    // ---- setters: replay, reset, and what the getters say ------------------------------------------

    /** A's network timeout, set unbound and replayed, must not be left on the connection B gets. */
    @Test
    void networkTimeoutOfAIsNotLeftForBOnPostgres() throws Exception {
        LoomPoolDataSource ds = pg(1);
        ExecutorService ex = Executors.newSingleThreadExecutor();
        try {
            long pidA;
            try (Connection a = ds.getConnection()) {
                a.setNetworkTimeout(ex, 300);
                assertThat(a.getNetworkTimeout()).isEqualTo(300);
                pidA = pgPid(a); // replayed on this binding
            }
            try (Connection b = ds.getConnection()) {
                assertThat(b.getNetworkTimeout()).isZero();
                assertThat(pgPid(b)).isEqualTo(pidA); // the same physical connection
                run(b, "SELECT pg_sleep(0.7)"); // would fail on a 300 ms socket timeout
                assertThat(b.getNetworkTimeout()).isZero();
            }
        } finally {
            ex.shutdownNow();
        }
    }

    /** A's catalog, chosen unbound and replayed as USE, must not be where B's SQL runs. */
    @Test
    void catalogOfAIsNotLeftForBOnMariaDb() throws SQLException {
        String other = "loompool_sp_" + tag;
        mariaAdmin("CREATE DATABASE " + other);
        mariaCleanup.add("DROP DATABASE IF EXISTS " + other);
        LoomPoolDataSource ds = maria(1);
        try (Connection a = ds.getConnection()) {
            a.setCatalog(other);
            assertThat(a.getCatalog()).isEqualTo(other);
            assertThat(str(a, "SELECT DATABASE()")).isEqualTo(other);
            assertThat(a.getCatalog()).isEqualTo(other);
        }
        try (Connection b = ds.getConnection()) {
            assertThat(b.getCatalog()).isEqualTo("test");
            assertThat(str(b, "SELECT DATABASE()")).isEqualTo("test");
        }
    }

    /** setSchema on MariaDB: what the plain driver does with it, the getter must say, bound or not. */
    @Test
    void setSchemaOnMariaDbGetterAnswersAsThePlainDriver() throws SQLException {
        String other = "loompool_sp_" + tag;
        mariaAdmin("CREATE DATABASE " + other);
        mariaCleanup.add("DROP DATABASE IF EXISTS " + other);
        String plainSchema;
        String plainDb;
        try (Connection c = TestDatabase.MARIADB.admin()) {
            c.setSchema(other);
            plainSchema = c.getSchema();
            plainDb = str(c, "SELECT DATABASE()");
        }
        LoomPoolDataSource ds = maria(1);
        try (Connection a = ds.getConnection()) {
            a.setSchema(other);
            String unbound = a.getSchema();
            String db = str(a, "SELECT DATABASE()");
            String bound = a.getSchema();
            assertThat("unbound getSchema=" + unbound + ", database=" + db + ", bound getSchema=" + bound)
                    .isEqualTo("unbound getSchema=" + plainSchema + ", database=" + plainDb + ", bound getSchema=" + plainSchema);
        }
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, "SELECT DATABASE()")).isEqualTo("test");
        }
    }

    /** Isolation chosen unbound: the getter and the server agree, and B gets the default back. */
    @Test
    void isolationChosenUnboundIsWhatTheTransactionRunsAtAndNotBsOnPostgres() throws SQLException {
        LoomPoolDataSource ds = pg(1);
        try (Connection a = ds.getConnection()) {
            a.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            assertThat(a.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_SERIALIZABLE);
            a.setAutoCommit(false);
            assertThat(str(a, "SHOW transaction_isolation")).isEqualTo("serializable");
            a.commit();
            assertThat(a.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_SERIALIZABLE);
        }
        try (Connection b = ds.getConnection()) {
            assertThat(b.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_READ_COMMITTED);
            b.setAutoCommit(false);
            assertThat(str(b, "SHOW transaction_isolation")).isEqualTo("read committed");
            b.rollback();
        }
    }

    /**
     * Isolation set inside a transaction: pgjdbc refuses it; the pool must too, its getter must
     * keep the old level, and the next transaction must run at the old level, as on the plain driver.
     */
    @Test
    void isolationSetInsideTransactionOnPostgresAnswersAsThePlainDriver() throws SQLException {
        pgTable();
        String plainAfter;
        int plainGetter;
        boolean plainRefused;
        try (Connection c = TestDatabase.POSTGRES.admin()) {
            plainRefused = isolationInsideTransaction(c, 100);
            plainGetter = c.getTransactionIsolation();
            c.setAutoCommit(false);
            plainAfter = str(c, "SHOW transaction_isolation");
            c.rollback();
        }
        LoomPoolDataSource ds = pg(1);
        try (Connection a = ds.getConnection()) {
            assertThat(isolationInsideTransaction(a, 1)).isEqualTo(plainRefused);
            assertThat(a.getTransactionIsolation()).isEqualTo(plainGetter);
            a.setAutoCommit(false);
            assertThat(str(a, "SHOW transaction_isolation")).isEqualTo(plainAfter);
            a.rollback();
        }
        assertThat(pgIds()).isEqualTo("1,100");
    }

    /**
     * MariaDB: isolation set inside a transaction (the server takes it for the next one): the
     * getter, the level the next transaction runs at, and what was committed, as on the plain
     * driver; B gets the default back.
     */
    @Test
    void isolationSetInsideTransactionOnMariaDbAnswersAsThePlainDriver() throws SQLException {
        mariaTable();
        String plain;
        try (Connection c = TestDatabase.MARIADB.admin()) {
            plain = mariaIsolationInsideTransaction(c, 1);
        }
        LoomPoolDataSource ds = maria(1);
        try (Connection a = ds.getConnection()) {
            assertThat(mariaIsolationInsideTransaction(a, 1)).isEqualTo(plain);
        }
        try (Connection b = ds.getConnection()) {
            assertThat(b.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_REPEATABLE_READ);
            assertThat(str(b, "SELECT @@tx_isolation")).isEqualTo("REPEATABLE-READ");
        }
        assertThat(mariaValues()).isEqualTo("1,1");
    }

    private String mariaIsolationInsideTransaction(Connection c, int v) throws SQLException {
        c.setAutoCommit(false);
        run(c, insertOf(TestDatabase.MARIADB, v));
        String story;
        try {
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            story = "set;";
        } catch (SQLException e) {
            story = "refused;";
        }
        story += "getter=" + c.getTransactionIsolation() + ";";
        c.commit();
        story += "after commit getter=" + c.getTransactionIsolation() + ";server=" + str(c, "SELECT @@tx_isolation");
        c.commit();
        c.setAutoCommit(true);
        return story;
    }

    /** In a transaction that inserts {@code id}: setTransactionIsolation(SERIALIZABLE), then commit. Refused? */
    private boolean isolationInsideTransaction(Connection c, int id) throws SQLException {
        c.setAutoCommit(false);
        run(c, "INSERT INTO " + table + " VALUES (" + id + ")");
        boolean refused = false;
        try {
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
        } catch (SQLException e) {
            refused = true;
        }
        c.commit();
        c.setAutoCommit(true);
        return refused;
    }

    /**
     * setReadOnly(true) inside a transaction, then a write and commit: what A commits, and what the
     * getter says, as on the plain driver; B's connection is writable.
     */
    @Test
    void readOnlyInsideTransactionOnPostgresCommitsWhatThePlainDriverCommits() throws SQLException {
        pgTable();
        String plain = readOnlyInsideTransaction(TestDatabase.POSTGRES.admin(), 1);
        LoomPoolDataSource ds = pg(1);
        String pooled = readOnlyInsideTransaction(ds.getConnection(), 11);
        assertThat(pooled).isEqualTo(plain);
        try (Connection b = ds.getConnection()) {
            assertThat(b.isReadOnly()).isFalse();
            run(b, "INSERT INTO " + table + " VALUES (50)");
        }
    }

    @Test
    void readOnlyInsideTransactionOnMariaDbCommitsWhatThePlainDriverCommits() throws SQLException {
        mariaTable();
        String plain = readOnlyInsideTransaction(TestDatabase.MARIADB.admin(), 1);
        LoomPoolDataSource ds = maria(1);
        String pooled = readOnlyInsideTransaction(ds.getConnection(), 11);
        assertThat(pooled).isEqualTo(plain);
        try (Connection b = ds.getConnection()) {
            assertThat(b.isReadOnly()).isFalse();
            run(b, insertOf(TestDatabase.MARIADB, 50));
        }
        assertThat(mariaValues()).endsWith("50");
    }

    /** The story of one borrower, as a string to compare: refusals, getter answers, and what was committed. */
    private String readOnlyInsideTransaction(Connection c, int base) throws SQLException {
        TestDatabase db = c.getMetaData().getURL().contains("postgresql") ? TestDatabase.POSTGRES : TestDatabase.MARIADB;
        StringBuilder story = new StringBuilder();
        try (c) {
            c.setAutoCommit(false);
            run(c, insertOf(db, base));
            try {
                c.setReadOnly(true);
                story.append("set;");
            } catch (SQLException e) {
                story.append("refused;");
            }
            story.append("ro=").append(c.isReadOnly()).append(';');
            try {
                run(c, insertOf(db, base + 1));
                story.append("write;");
            } catch (SQLException e) {
                story.append("write refused;");
                c.rollback();
            }
            c.commit();
            story.append("after commit ro=").append(c.isReadOnly()).append(';');
            try {
                run(c, insertOf(db, base + 2));
                c.commit();
                story.append("next write;");
            } catch (SQLException e) {
                story.append("next write refused;");
                c.rollback();
            }
            c.setAutoCommit(true);
        }
        String committed = db == TestDatabase.POSTGRES ? pgIds() : mariaValues();
        // relative to base: which of base, base+1, base+2 are there now
        for (int i = 0; i < 3; i++) {
            int v = base + i;
            story.append(("," + committed + ",").contains("," + v + ",") ? "+" : "-");
        }
        return story.toString();
    }

    /** setReadOnly(true) with no transaction: the write is refused as on the plain driver, and B may write. */
    @Test
    void readOnlyUnboundOnPostgresRefusesAsThePlainDriverAndNotForB() throws SQLException {
        pgTable();
        boolean plainRefused;
        try (Connection c = TestDatabase.POSTGRES.admin()) {
            c.setReadOnly(true);
            plainRefused = refused(c, "INSERT INTO " + table + " VALUES (1)");
        }
        LoomPoolDataSource ds = pg(1);
        try (Connection a = ds.getConnection()) {
            a.setReadOnly(true);
            assertThat(refused(a, "INSERT INTO " + table + " VALUES (2)")).isEqualTo(plainRefused);
            assertThat(a.isReadOnly()).isTrue();
        }
        try (Connection b = ds.getConnection()) {
            assertThat(b.isReadOnly()).isFalse();
            run(b, "INSERT INTO " + table + " VALUES (3)");
        }
        assertThat(pgIds()).isEqualTo(plainRefused ? "3" : "1,2,3");
    }

    @Test
    void readOnlyUnboundOnMariaDbRefusesAsThePlainDriverAndNotForB() throws SQLException {
        mariaTable();
        boolean plainRefused;
        try (Connection c = TestDatabase.MARIADB.admin()) {
            c.setReadOnly(true);
            plainRefused = refused(c, insertOf(TestDatabase.MARIADB, 1));
        }
        LoomPoolDataSource ds = maria(1);
        try (Connection a = ds.getConnection()) {
            a.setReadOnly(true);
            assertThat(refused(a, insertOf(TestDatabase.MARIADB, 2))).isEqualTo(plainRefused);
            assertThat(a.isReadOnly()).isTrue();
        }
        try (Connection b = ds.getConnection()) {
            assertThat(b.isReadOnly()).isFalse();
            run(b, insertOf(TestDatabase.MARIADB, 3));
        }
        assertThat(mariaValues()).isEqualTo(plainRefused ? "3" : "1,2,3");
    }

    private static boolean refused(Connection c, String sql) {
        try {
            run(c, sql);
            return false;
        } catch (SQLException e) {
            return true;
        }
    }

    // ---- warnings ----------------------------------------------------------------------------------

    /** A leaves a warning on the MariaDB session; B, on the same connection, must not read it. */
    @Test
    void warningOfAIsNotReadByBOnMariaDb() throws SQLException {
        LoomPoolDataSource ds = maria(1);
        String conA;
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            conA = str(a, "SELECT CONNECTION_ID()");
            run(a, "SELECT 1/0"); // "Division by 0"
            SQLWarning w = a.getWarnings();
            assertThat((Object) w).as("A reads its own warning while bound").isNotNull();
            a.commit();
        }
        try (Connection b = ds.getConnection()) {
            b.setAutoCommit(false); // binds B
            b.unwrap(LoomConnection.class).pin();
            assertThat((Object) b.getWarnings()).as("B, before any SQL of its own").isNull();
            assertThat(str(b, "SELECT CONNECTION_ID()")).isEqualTo(conA);
            b.rollback();
        }
    }

    // ---- explicit pins and framework transactions -------------------------------------------------

    /**
     * endFrameworkTransaction without a begin, and unpin without a pin, in the middle of a JDBC
     * transaction: neither may let go of it. A's rollback undoes A's insert; B never sees it.
     */
    @Test
    void unmatchedEndsInsideTransactionDoNotLetItGoOnPostgres() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        ds.setAcquireTimeout(Duration.ofMillis(500));
        try (Connection a = ds.getConnection()) {
            LoomConnection la = a.unwrap(LoomConnection.class);
            a.setAutoCommit(false);
            run(a, "INSERT INTO " + table + " VALUES (1)");
            long pid = pgPid(a);
            la.endFrameworkTransaction();
            la.unpin();
            la.pin();
            la.pin();
            la.unpin(); // ends both: a set, not a count
            assertThat(la.isBound()).isTrue();
            // B on another thread must not get A's connection (the pool has one).
            CompletableFuture<Long> b = CompletableFuture.supplyAsync(() -> {
                try (Connection c = ds.getConnection()) {
                    return pgPid(c);
                } catch (SQLException e) {
                    return -1L;
                }
            });
            assertThat(b.get(5, TimeUnit.SECONDS)).isEqualTo(-1L);
            assertThat(pgPid(a)).isEqualTo(pid);
            assertThat(num(a, "SELECT count(*) FROM " + table)).isEqualTo(1);
            a.rollback();
        }
        assertThat(pgRows()).isZero();
    }

    /** Framework transaction begun, JDBC transaction committed, framework ended twice: nothing stays bound. */
    @Test
    void frameworkEndsOutOfOrderLeaveNothingBoundOnPostgres() throws SQLException {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        try (Connection a = ds.getConnection()) {
            LoomConnection la = a.unwrap(LoomConnection.class);
            la.beginFrameworkTransaction();
            a.setAutoCommit(false);
            run(a, "INSERT INTO " + table + " VALUES (1)");
            la.endFrameworkTransaction(); // before the commit: the JDBC transaction still holds it
            assertThat(la.isBound()).isTrue();
            a.commit();
            la.endFrameworkTransaction();
            a.setAutoCommit(true);
            assertThat(la.isBound()).isFalse();
            assertThat(la.pinReasons()).isEmpty();
        }
        assertThat(pgIds()).isEqualTo("1");
        assertThat(ds.getPool().stats().inUse()).isZero();
    }

    // ---- statements that outlive their handle or binding ------------------------------------------

    /**
     * A prepares, closes its handle, B gets the same connection and opens a transaction: A's stale
     * statement must not run inside B's transaction (nor anywhere).
     */
    @Test
    void statementOfAClosedHandleDoesNotRunInBsTransactionOnPostgres() throws SQLException {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        Connection a = ds.getConnection();
        PreparedStatement ps = a.prepareStatement("INSERT INTO " + table + " VALUES (?)");
        Statement st = a.createStatement();
        long pidA = pgPid(a);
        a.close();
        try (Connection b = ds.getConnection()) {
            b.setAutoCommit(false);
            run(b, "INSERT INTO " + table + " VALUES (2)");
            assertThat(pgPid(b)).isEqualTo(pidA);
            assertThatThrownBy(() -> {
                ps.setInt(1, 1);
                ps.executeUpdate();
            }).isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> st.execute("INSERT INTO " + table + " VALUES (3)")).isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> st.getConnection().createStatement()).isInstanceOf(SQLException.class);
            b.rollback();
        }
        assertThat(pgRows()).isZero();
    }

    @Test
    void statementOfAClosedHandleDoesNotRunInBsTransactionOnMariaDb() throws SQLException {
        mariaTable();
        LoomPoolDataSource ds = maria(1);
        Connection a = ds.getConnection();
        PreparedStatement ps = a.prepareStatement(insertOf(TestDatabase.MARIADB, 1));
        a.close();
        try (Connection b = ds.getConnection()) {
            b.setAutoCommit(false);
            run(b, insertOf(TestDatabase.MARIADB, 2));
            assertThatThrownBy(ps::executeUpdate).isInstanceOf(SQLException.class);
            assertThatThrownBy(ps::executeQuery).isInstanceOf(SQLException.class);
            b.rollback();
        }
        assertThat(mariaRows()).isZero();
    }

    /**
     * A result set of A kept after A's handle closed: reading it must not read B's data, and its
     * statement must not run again.
     */
    @Test
    void resultSetOfAClosedHandleDoesNotReachBOnPostgres() throws SQLException {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        Connection a = ds.getConnection();
        PreparedStatement ps = a.prepareStatement("SELECT id FROM " + table);
        ResultSet rs = ps.executeQuery();
        a.close();
        try (Connection b = ds.getConnection()) {
            b.setAutoCommit(false);
            run(b, "INSERT INTO " + table + " VALUES (7)");
            assertThatThrownBy(rs::next).isInstanceOf(SQLException.class);
            assertThatThrownBy(ps::executeQuery).isInstanceOf(SQLException.class);
            b.rollback();
        }
        assertThat(pgRows()).isZero();
    }

    // ---- abort while a statement runs -------------------------------------------------------------

    /**
     * A aborts its handle from another thread while its statement runs inside a transaction: the
     * transaction is gone, the statement's thread gets an error, and the pool's one connection is
     * handed to exactly one next borrower (no double return).
     */
    @Test
    void abortWhileAStatementRunsLosesTheTransactionAndReturnsTheSlotOnceOnPostgres() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        ds.setAcquireTimeout(Duration.ofMillis(800));
        ExecutorService ex = Executors.newCachedThreadPool();
        try {
            Connection a = ds.getConnection();
            a.setAutoCommit(false);
            run(a, "INSERT INTO " + table + " VALUES (1)");
            long pid = pgPid(a);
            CompletableFuture<String> sleeper = CompletableFuture.supplyAsync(() -> {
                try {
                    run(a, "SELECT pg_sleep(5)");
                    return "ran";
                } catch (SQLException e) {
                    return "failed";
                }
            }, ex);
            waitForSleep(pid);
            a.abort(ex);
            assertThat(sleeper.get(10, TimeUnit.SECONDS)).isEqualTo("failed");
            assertThat(a.isClosed()).isTrue();
            assertThatThrownBy(() -> run(a, "INSERT INTO " + table + " VALUES (2)")).isInstanceOf(SQLException.class);
            assertThatThrownBy(a::commit).isInstanceOf(SQLException.class);
            a.close();
            try (Connection b = ds.getConnection()) {
                b.setAutoCommit(false);
                long pidB = pgPid(b);
                assertThat(pidB).isNotEqualTo(pid);
                CompletableFuture<Long> c = CompletableFuture.supplyAsync(() -> {
                    try (Connection cc = ds.getConnection()) {
                        return pgPid(cc);
                    } catch (SQLException e) {
                        return -1L;
                    }
                }, ex);
                assertThat(c.get(5, TimeUnit.SECONDS)).as("a second borrower of a one-connection pool").isEqualTo(-1L);
                b.rollback();
            }
            assertThat(pgRows()).isZero();
        } finally {
            ex.shutdownNow();
        }
    }

    private static void waitForSleep(long pid) throws Exception {
        for (int i = 0; i < 200; i++) {
            try (Connection admin = TestDatabase.POSTGRES.admin()) {
                if (num(admin, "SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid
                        + " AND query LIKE 'SELECT pg_sleep%' AND state = 'active'") > 0) {
                    return;
                }
            }
            Thread.sleep(25);
        }
        throw new AssertionError("the statement never started");
    }
}
