package dev.loompool.jdbc.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomConnection;
import dev.loompool.jdbc.LoomPoolDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every counterexample the pool's sequence fuzzer ({@link PoolSequenceFuzzTest}) found, shrunk and
 * kept by name, in the form of the pin-semantics suite: borrower A did this on a pool of one
 * connection; what does borrower B see (beside a plain connection with the same settings, from
 * open to close: what a fresh session is); what did A commit? Each runs on every target, so that
 * a case found on one driver holds on the others too.
 */
class PoolSequenceCounterexamplesTest {

    private final String table = "wt38d_cx_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private final List<LoomPoolDataSource> pools = new ArrayList<>();
    private SeqTarget made;
    private final List<String> adminAfter = new ArrayList<>();

    @AfterEach
    void cleanup() throws SQLException {
        pools.forEach(LoomPoolDataSource::close);
        if (made != null) {
            try (Connection c = made.database.admin(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + table);
                for (String sql : adminAfter) {
                    s.execute(sql);
                }
            }
        }
    }

    /**
     * Found on MariaDB Connector/J (seed 38, its first 40 sequences): the pool's default isolation
     * was set at connect; A left session state, so the returned connection was reset
     * (COM_RESET_CONNECTION), which puts the server's isolation back to its global default. The
     * driver keeps the level it last set as its own, and the pool's {@code setTransactionIsolation}
     * of the default afterwards was not sent: B ran at REPEATABLE READ where the pool says
     * SERIALIZABLE (and B's {@code getTransactionIsolation()} said so too).
     */
    @ParameterizedTest
    @EnumSource(SeqTarget.class)
    void thePoolsDefaultIsolationIsPutBackAfterTheResetOfTheSessionALeftState(SeqTarget target) throws SQLException {
        makeTable(target);
        LoomPoolDataSource ds = pool(target);
        ds.setTransactionIsolation("TRANSACTION_SERIALIZABLE");
        try (Connection a = ds.getConnection(); Statement s = a.createStatement()) {
            s.execute(target.postgres() ? "SET application_name = 'wt38d_a'" : "SET @fz_a = 1"); // session state: reset at close
            s.execute("INSERT INTO " + table + " VALUES (1, 'a')");
        }
        String fresh;
        try (Connection plain = target.plain()) {
            plain.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            fresh = isolation(plain, target);
        }
        try (Connection b = ds.getConnection()) {
            assertThat(isolation(b, target)).as("B's session").isEqualTo(fresh);
            assertThat(b.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_SERIALIZABLE);
        }
        assertThat(committed(target)).containsExactly("1|a");
    }

    /**
     * Found on MySQL Connector/J and MariaDB Connector/J (long run, seed 65): the MariaDB server
     * keeps a transaction's READ ONLY for the session's next transaction when the transaction
     * ends by {@code SET autocommit = 1} (what the drivers send for {@code setAutoCommit(true)})
     * rather than by COMMIT or ROLLBACK. The wire then says no transaction is open, the handle
     * lets the connection go, and B's first transaction cannot write (1792, SQLState 25006), where
     * a fresh session's can. Fixed: on MariaDB and MySQL {@code START TRANSACTION … READ ONLY} is
     * session state too, so the session is reset when A closes.
     */
    @ParameterizedTest
    @EnumSource(SeqTarget.class)
    void aReadOnlyTransactionEndedBySetAutoCommitTrueLeavesBNoReadOnlyTransaction(SeqTarget target) throws SQLException {
        makeTable(target);
        LoomPoolDataSource ds = pool(target);
        try (Connection a = ds.getConnection()) {
            try (Statement s = a.createStatement()) {
                s.execute("START TRANSACTION READ ONLY");
                s.execute("SELECT count(*) FROM " + table);
            }
            a.setAutoCommit(false);
            a.setAutoCommit(true); // ends A's transaction: the wire says none is open
            if (!target.postgres()) { // the server keeps the READ ONLY: the session is A's until it closes
                assertThat(a.unwrap(LoomConnection.class).isBound()).isTrue();
            }
        }
        String fresh;
        try (Connection plain = target.plain()) {
            fresh = writeInATransaction(plain, 1);
        }
        try (Connection b = ds.getConnection()) {
            assertThat(writeInATransaction(b, 2)).as("B's first transaction").isEqualTo(fresh).isEqualTo("committed");
        }
        assertThat(committed(target)).containsExactly("1|x", "2|x");
    }

    /**
     * Found on MySQL Connector/J (long run, seed 65): {@code FOUND_ROWS()} is let through when the
     * handle's last statement ran on the same binding, whatever that statement was. After a
     * statement that sets no row count ({@code SET}), the value read is the one the previous
     * borrower's SELECT left (or the pool's own reset query's): B reads the number of rows A's
     * query returned. A fresh session answers its own value; the pool refuses a first read (55000).
     */
    @ParameterizedTest
    @EnumSource(value = SeqTarget.class, names = {"MARIADB_CJ", "MYSQL_CJ"})
    void foundRowsAfterASetDoesNotReadTheRowCountOfAsQuery(SeqTarget target) throws SQLException {
        makeTable(target);
        try (Connection c = target.database.admin(); Statement s = c.createStatement()) {
            s.execute("INSERT INTO " + table + " VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e')");
        }
        LoomPoolDataSource ds = pool(target);
        try (Connection a = ds.getConnection(); Statement s = a.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM " + table)) {
            int rows = 0;
            while (rs.next()) {
                rows++;
            }
            assertThat(rows).isEqualTo(5);
        }
        String fresh;
        try (Connection plain = target.plain()) {
            fresh = foundRowsAfterASet(plain);
        }
        try (Connection b = ds.getConnection()) {
            String seen = foundRowsAfterASet(b);
            assertThat(seen).as("B's FOUND_ROWS() (a fresh session answers %s)", fresh).isNotEqualTo("5");
            assertThat(seen).isIn(fresh, "refused 55000");
        }
        assertThat(committed(target)).hasSize(5); // A only read
    }

    /**
     * Found on pgjdbc (long run, seed 4066): A, holding its connection, set the schema to another
     * and back to {@code public}, the schema it started with. pgjdbc's {@code setSchema} sets the
     * search path to that one schema; the handle's schema equals the pool's default again, so the
     * returned connection is not reset, and B's search path is {@code public} where a fresh
     * session's is {@code "$user", public}: a schema named after the user is no longer searched.
     */
    @ParameterizedTest
    @EnumSource(SeqTarget.class)
    void aSchemaSetAndSetBackLeavesBTheSearchPathOfAFreshSession(SeqTarget target) throws SQLException {
        makeTable(target);
        String other = "wt38d_cx_other";
        if (target.postgres()) {
            adminRun(target, "CREATE SCHEMA IF NOT EXISTS " + other);
            adminAfter.add("DROP SCHEMA IF EXISTS " + other);
        }
        LoomPoolDataSource ds = pool(target);
        try (Connection a = ds.getConnection()) {
            try (Statement s = a.createStatement()) {
                s.execute("INSERT INTO " + table + " VALUES (1, 'a')"); // the open statement keeps the connection
                assertThat(a.unwrap(LoomConnection.class).isBound()).isTrue();
                a.setSchema(other);
                a.setSchema(target.postgres() ? "public" : "test"); // the schema it started with
            }
        }
        String fresh;
        try (Connection plain = target.plain()) {
            fresh = searchPath(plain, target);
        }
        try (Connection b = ds.getConnection()) {
            assertThat(searchPath(b, target)).as("B's search path").isEqualTo(fresh);
        }
        assertThat(committed(target)).containsExactly("1|a");
    }

    /**
     * Found on pgjdbc (long run, seed 5334), the same rule as the case above: A set the schema
     * while holding no connection (the handle keeps it and sets it on the connection it binds
     * next), began a transaction, set the schema back to {@code public} inside it and closed, so
     * the transaction and with it that last {@code SET search_path} were rolled back. The handle's
     * schema equals the pool's default, so the connection is not reset: B's unqualified SQL runs
     * in A's schema.
     */
    @ParameterizedTest
    @EnumSource(SeqTarget.class)
    void aSchemaSetBackInARolledBackTransactionLeavesBNotInAsSchema(SeqTarget target) throws SQLException {
        makeTable(target);
        String other = "wt38d_cx_other";
        if (target.postgres()) {
            adminRun(target, "CREATE SCHEMA IF NOT EXISTS " + other);
            adminAfter.add("DROP SCHEMA IF EXISTS " + other);
        }
        LoomPoolDataSource ds = pool(target);
        try (Connection a = ds.getConnection()) {
            a.setSchema(other); // no connection yet: kept by the handle
            a.setAutoCommit(false);
            try (Statement s = a.createStatement()) {
                s.execute("INSERT INTO " + (target.postgres() ? "public." : "") + table + " VALUES (1, 'a')");
            }
            a.setSchema(target.postgres() ? "public" : "test");
        } // closed without commit: rolled back
        String fresh;
        try (Connection plain = target.plain()) {
            fresh = searchPath(plain, target);
        }
        try (Connection b = ds.getConnection()) {
            assertThat(searchPath(b, target)).as("B's search path").isEqualTo(fresh);
        }
        assertThat(committed(target)).isEmpty();
    }

    /**
     * Found on pgjdbc (long run, seed 5334): inside a transaction, SQL {@code SET TRANSACTION
     * ISOLATION LEVEL SERIALIZABLE} sets the transaction's level; pgjdbc's
     * {@code getTransactionIsolation()} asks the server and answers it, the pool's answers the
     * handle's level from memory (the README's getters ask the driver once SQL changed the
     * session's characteristics, and {@code SET TRANSACTION} is not counted as that).
     */
    @ParameterizedTest
    @EnumSource(value = SeqTarget.class, names = "PGJDBC")
    void theIsolationGetterAnswersTheLevelSqlSetForTheTransaction(SeqTarget target) throws SQLException {
        makeTable(target);
        LoomPoolDataSource ds = pool(target);
        int plainLevel;
        try (Connection plain = target.plain()) {
            plainLevel = levelAfterSetTransaction(plain);
        }
        try (Connection a = ds.getConnection()) {
            assertThat(levelAfterSetTransaction(a)).isEqualTo(plainLevel).isEqualTo(Connection.TRANSACTION_SERIALIZABLE);
        }
        assertThat(committed(target)).isEmpty();
    }

    /**
     * Found on MariaDB Connector/J (long run, seed 13436), and so on MySQL Connector/J: with
     * autocommit off, a transaction that has read no table yet holds a savepoint; a statement
     * fails; the server's status then says no transaction is open, and the handle lets the
     * connection go although autocommit is off. The reset of the returned connection (or the next
     * borrower) takes the savepoint with it: A's {@code rollback(savepoint)} fails (42000), where
     * the plain driver's succeeds.
     */
    @ParameterizedTest
    @EnumSource(SeqTarget.class)
    void aSavepointOutlivesAFailedStatementBeforeTheTransactionTouchedATable(SeqTarget target) throws SQLException {
        makeTable(target);
        LoomPoolDataSource ds = pool(target);
        String plain;
        try (Connection c = target.plain()) {
            plain = savepointAfterAFailure(c);
        }
        try (Connection a = ds.getConnection()) {
            assertThat(savepointAfterAFailure(a)).isEqualTo(plain).isEqualTo("rolled back to the savepoint");
        }
        assertThat(committed(target)).containsExactly("1|x", "1|x"); // the plain connection's row, and A's
    }

    // ---- helpers ---------------------------------------------------------------------------------

    private LoomPoolDataSource pool(SeqTarget target) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(target.url());
        ds.setPoolName("wt38d-cx");
        ds.setMinSize(1);
        ds.setMaxSize(1);
        ds.setAcquireTimeout(Duration.ofSeconds(3));
        pools.add(ds);
        return ds;
    }

    private void makeTable(SeqTarget target) throws SQLException {
        made = target;
        try (Connection c = target.database.admin(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (id int, v varchar(200))" + (target.postgres() ? "" : " ENGINE=InnoDB"));
        }
    }

    private static void adminRun(SeqTarget target, String sql) throws SQLException {
        try (Connection c = target.database.admin(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** A transaction that inserts row {@code id} and commits: "committed", or the SQLState it failed with. */
    private String writeInATransaction(Connection c, int id) throws SQLException {
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.execute("INSERT INTO " + table + " VALUES (" + id + ", 'x')");
            c.commit();
            return "committed";
        } catch (SQLException e) {
            c.rollback();
            return "fails " + e.getSQLState();
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** Autocommit off, a savepoint, a failed statement, then back to the savepoint and one committed row. */
    private String savepointAfterAFailure(Connection c) throws SQLException {
        c.setAutoCommit(false);
        try {
            java.sql.Savepoint sp = c.setSavepoint("sp1");
            try (Statement s = c.createStatement()) {
                s.execute("SELECT * FROM wt38d_cx_no_such_table");
            } catch (SQLException expected) {
                // 42P01 / 42S02: the table does not exist
            }
            try {
                c.rollback(sp);
            } catch (SQLException e) {
                c.rollback();
                return "fails " + e.getSQLState();
            }
            try (Statement s = c.createStatement()) {
                s.execute("INSERT INTO " + table + " VALUES (1, 'x')");
            }
            c.commit();
            return "rolled back to the savepoint";
        } finally {
            c.setAutoCommit(true);
        }
    }

    private static String foundRowsAfterASet(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SET @fz_a = 1");
            try (ResultSet rs = s.executeQuery("SELECT FOUND_ROWS()")) {
                rs.next();
                return rs.getString(1);
            }
        } catch (SQLException e) {
            return "refused " + e.getSQLState();
        }
    }

    /** In a transaction: SQL sets its level, then the getter is asked; rolled back. */
    private int levelAfterSetTransaction(Connection c) throws SQLException {
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.execute("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE");
            s.execute("SELECT count(*) FROM " + table);
            return c.getTransactionIsolation();
        } finally {
            c.rollback();
            c.setAutoCommit(true);
        }
    }

    private static String searchPath(Connection c, SeqTarget target) throws SQLException {
        return answer(c, target.postgres() ? "SHOW search_path" : "SELECT DATABASE()");
    }

    /** The isolation the session's transactions get, as the server says. */
    private static String isolation(Connection c, SeqTarget target) throws SQLException {
        return answer(c, target.postgres() ? "SHOW default_transaction_isolation" : "SELECT @@tx_isolation");
    }

    private static String answer(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** What is committed in the table, as another session sees it: "id|v" by id. */
    private List<String> committed(SeqTarget target) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = target.database.admin(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, v FROM " + table + " ORDER BY id, v")) {
            while (rs.next()) {
                rows.add(rs.getString(1) + "|" + rs.getString(2));
            }
        }
        return rows;
    }
}
