package dev.loompool.jdbc.fuzz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.ReleaseMode;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code setSchema} and the transaction around it (DESIGN.md §4, settings replayed on every
 * binding): pgjdbc sends it as {@code SET SESSION search_path}, which a rollback, whole or to a
 * savepoint, undoes. The handle's {@code getSchema()}, the path its next statement runs in, and
 * the schema it replays on its next binding are what a plain connection has after the same calls.
 * Found by the sequence fuzzer on pgjdbc (seed 4311: the handle's getter kept the rolled-back
 * schema); each case runs on every target, where drivers that ignore {@code setSchema} must agree too.
 */
class SchemaInTransactionTest {

    private static final String OTHER = "wt44_schema_other";

    private final List<LoomPoolDataSource> pools = new ArrayList<>();

    /** What a connection says after a scenario: its getter, and the path its SQL runs in. */
    record Seen(String schema, String path) {
    }

    @FunctionalInterface
    interface Calls {
        void on(Connection c) throws SQLException;
    }

    @AfterEach
    void cleanup() throws SQLException {
        pools.forEach(LoomPoolDataSource::close);
        for (SeqTarget target : SeqTarget.values()) {
            if (target.postgres()) {
                try (Connection c = target.database.admin(); Statement s = c.createStatement()) {
                    s.execute("DROP SCHEMA IF EXISTS " + OTHER);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(SeqTarget.class)
    void aSchemaSetInARolledBackTransactionIsGone(SeqTarget target) throws SQLException {
        sameAsPlain(target, c -> {
            c.setAutoCommit(false);
            c.setSchema(OTHER);
            c.rollback();
        });
    }

    @ParameterizedTest
    @EnumSource(SeqTarget.class)
    void aSchemaSetInACommittedTransactionStays(SeqTarget target) throws SQLException {
        sameAsPlain(target, c -> {
            c.setAutoCommit(false);
            c.setSchema(OTHER);
            c.commit();
        });
    }

    @ParameterizedTest
    @EnumSource(SeqTarget.class)
    void aSchemaSetAfterASavepointIsGoneWithTheRollbackToIt(SeqTarget target) throws SQLException {
        sameAsPlain(target, c -> {
            c.setAutoCommit(false);
            Savepoint sp = c.setSavepoint();
            c.setSchema(OTHER);
            c.rollback(sp);
        });
    }

    @ParameterizedTest
    @EnumSource(SeqTarget.class)
    void aSchemaSetInATransactionEndedBySqlRollbackIsGone(SeqTarget target) throws SQLException {
        sameAsPlain(target, c -> {
            c.setAutoCommit(false);
            c.setSchema(OTHER);
            try (Statement s = c.createStatement()) {
                s.execute("ROLLBACK");
            }
        });
    }

    /** The same schema set again after the rollback undid it: the session has it again. */
    @ParameterizedTest
    @EnumSource(SeqTarget.class)
    void theSameSchemaSetAgainAfterTheRollbackIsSent(SeqTarget target) throws SQLException {
        sameAsPlain(target, c -> {
            c.setAutoCommit(false);
            c.setSchema(OTHER);
            c.rollback();
            c.setSchema(OTHER);
            c.commit();
        });
    }

    /**
     * Chosen with autocommit on, it is committed; the handle's next transaction, rolled back,
     * does not undo it, though the pool replayed the choice on a new binding.
     */
    @ParameterizedTest
    @EnumSource(SeqTarget.class)
    void aSchemaChosenBeforeATransactionOutlivesItsRollback(SeqTarget target) throws SQLException {
        sameAsPlain(target, c -> {
            c.setSchema(OTHER);
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("SELECT 1");
            }
            c.rollback();
        });
    }

    /** An SQL savepoint the pool does not read, rolled back to by SQL: the schema set after it is gone. */
    @ParameterizedTest
    @EnumSource(SeqTarget.class)
    void aSchemaSetAfterAnSqlSavepointIsGoneWithTheSqlRollbackToIt(SeqTarget target) throws SQLException {
        sameAsPlain(target, c -> {
            c.setAutoCommit(false);
            sql(c, "SAVEPOINT s1");
            c.setSchema(OTHER);
            sql(c, "ROLLBACK TO SAVEPOINT s1");
            c.commit();
        });
    }

    /** The same, and the schema set again afterwards: it must reach the session. */
    @ParameterizedTest
    @EnumSource(SeqTarget.class)
    void theSchemaSetAgainAfterAnSqlRollbackToASavepointIsSent(SeqTarget target) throws SQLException {
        sameAsPlain(target, c -> {
            c.setAutoCommit(false);
            try (Statement held = c.createStatement()) { // keeps the binding
                held.execute("SAVEPOINT s1");
                c.setSchema(OTHER);
                held.execute("ROLLBACK TO SAVEPOINT s1");
                c.setSchema(OTHER);
                c.commit();
            }
        });
    }

    /** {@code ROLLBACK AND CHAIN} ends the transaction (and opens the next): the schema set in it is gone. */
    @ParameterizedTest
    @EnumSource(value = SeqTarget.class, names = "PGJDBC")
    void aSchemaSetInATransactionRolledBackAndChainedIsGone(SeqTarget target) throws SQLException {
        sameAsPlain(target, c -> {
            c.setAutoCommit(false);
            c.setSchema(OTHER);
            sql(c, "ROLLBACK AND CHAIN");
            c.commit();
        });
    }

    /** A statement failed, so the server rolls back whatever the commit says: the schema set in it is gone. */
    @ParameterizedTest
    @EnumSource(SeqTarget.class)
    void aSchemaSetInAnAbortedTransactionIsGoneAfterItsCommit(SeqTarget target) throws SQLException {
        sameAsPlain(target, c -> {
            c.setAutoCommit(false);
            c.setSchema(OTHER);
            try {
                sql(c, "SELECT 1/0");
            } catch (SQLException expected) {
                // 22012
            }
            try {
                c.commit();
            } catch (SQLException refused) {
                c.rollback(); // a driver that refuses the commit of a failed transaction
            }
        });
    }

    /** On a pool whose autocommit is off, a setSchema after a commit is the first statement of the next transaction. */
    @ParameterizedTest
    @EnumSource(SeqTarget.class)
    void onAnAutocommitOffPoolASchemaSetAfterACommitIsUndoneByTheRollback(SeqTarget target) throws SQLException {
        sameAsPlain(target, "", true, c -> {
            sql(c, "SELECT 1");
            c.commit();
            c.setSchema(OTHER);
            c.rollback();
        });
    }

    /** The same pool: a schema committed, then another one set and rolled back: the committed one stays. */
    @ParameterizedTest
    @EnumSource(SeqTarget.class)
    void onAnAutocommitOffPoolTheCommittedSchemaOutlivesTheNextOnesRollback(SeqTarget target) throws SQLException {
        sameAsPlain(target, "", true, c -> {
            c.setSchema(OTHER);
            c.commit();
            c.setSchema("public");
            c.rollback();
        });
    }

    /** {@code setSchema(null)}: the driver's default again (pgjdbc: {@code SET search_path TO DEFAULT}), on either pool. */
    @ParameterizedTest
    @EnumSource(SeqTarget.class)
    void aSchemaSetBackToNullIsTheDefaultAgain(SeqTarget target) throws SQLException {
        Calls calls = c -> {
            c.setSchema(OTHER);
            if (!c.getAutoCommit()) {
                c.commit();
            }
            c.setSchema(null);
            if (!c.getAutoCommit()) {
                c.commit();
            }
        };
        sameAsPlain(target, "", false, calls);
        sameAsPlain(target, "", true, calls);
    }

    /**
     * A schema that does not exist (yet): pgjdbc's {@code getSchema()} is then null, but the
     * session's path names it, and the next statements run there (and fail, or find what is
     * created there later). The handle keeps it as its path too.
     */
    @ParameterizedTest
    @EnumSource(value = SeqTarget.class, names = "PGJDBC")
    void aSchemaThatDoesNotExistYetStaysThePath(SeqTarget target) throws SQLException {
        String missing = "wt44_schema_missing";
        String plainPath;
        try (Connection c = target.plain()) {
            c.setAutoCommit(false);
            c.setSchema(missing);
            c.commit();
            plainPath = seen(c, target).path();
            c.rollback();
        }
        for (ReleaseMode mode : ReleaseMode.values()) {
            LoomPoolDataSource ds = pool(target);
            ds.setReleaseMode(mode);
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                c.setSchema(missing);
                c.commit();
                assertThat(seen(c, target).path()).as("%s: the path its statements run in", mode).isEqualTo(plainPath);
                c.rollback();
            }
        }
    }

    /**
     * The connection is lost after a schema was set in its transaction: nobody can say any more
     * whether the schema was kept, and the plain connection's next call fails; so does the handle's,
     * rather than go on in a schema on a new connection.
     */
    @ParameterizedTest
    @EnumSource(value = SeqTarget.class, names = "PGJDBC")
    void aConnectionLostAfterASchemaSetInItsTransactionEndsTheHandle(SeqTarget target) throws SQLException {
        makeSchema(target);
        LoomPoolDataSource ds = pool(target);
        ds.setJdbcUrl(target.url() + "&ApplicationName=wt44_schema_lost");
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            c.setSchema(OTHER);
            try (Connection admin = target.database.admin(); Statement s = admin.createStatement()) {
                s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'wt44_schema_lost'");
            }
            assertThatThrownBy(c::commit).isInstanceOf(SQLException.class);
            try {
                c.rollback();
            } catch (SQLException alsoFine) {
                // the plain driver's rollback fails too
            }
            assertThatThrownBy(() -> sql(c, "SELECT 1")).as("the next statement, on a new connection and a guessed schema")
                    .isInstanceOf(SQLException.class);
        }
    }

    /**
     * A schema that does not exist, chosen and committed, then another set in a transaction that
     * rolls back: the session is back on the first, which pgjdbc's getter cannot name (null); the
     * handle's statements must run there, not in the rolled-back one.
     */
    @ParameterizedTest
    @EnumSource(value = SeqTarget.class, names = "PGJDBC")
    void aRolledBackSchemaDoesNotWinOverAMissingOneBeforeIt(SeqTarget target) throws SQLException {
        makeSchema(target);
        String missing = "wt44_schema_missing";
        String plainPath;
        try (Connection c = target.plain()) {
            c.setSchema(missing);
            c.setAutoCommit(false);
            c.setSchema(OTHER);
            c.rollback();
            plainPath = seen(c, target).path();
            c.rollback();
        }
        for (ReleaseMode mode : ReleaseMode.values()) {
            LoomPoolDataSource ds = pool(target);
            ds.setReleaseMode(mode);
            try (Connection c = ds.getConnection()) {
                c.setSchema(missing);
                c.setAutoCommit(false);
                c.setSchema(OTHER);
                c.rollback();
                assertThat(seen(c, target).path()).as("%s: the path its statements run in", mode).isEqualTo(plainPath);
                c.rollback();
            }
        }
    }

    /** {@code setCatalog(null)}: MariaDB Connector/J ignores it, MySQL Connector/J refuses it; the handle's database stays. */
    @ParameterizedTest
    @EnumSource(value = SeqTarget.class, names = {"MARIADB_CJ", "MYSQL_CJ"})
    void setCatalogNullAnswersAsTheDriverAndKeepsTheDatabase(SeqTarget target) throws SQLException {
        String db = "wt44_catalog_other";
        try (Connection c = target.database.admin(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE IF NOT EXISTS " + db);
        }
        try {
            String plain;
            try (Connection c = target.plain()) {
                plain = catalogAfterNull(c, db);
            }
            for (ReleaseMode mode : ReleaseMode.values()) {
                LoomPoolDataSource ds = pool(target);
                ds.setReleaseMode(mode);
                try (Connection c = ds.getConnection()) {
                    assertThat(catalogAfterNull(c, db)).as("%s", mode).isEqualTo(plain);
                }
            }
        } finally {
            try (Connection c = target.database.admin(); Statement s = c.createStatement()) {
                s.execute("DROP DATABASE IF EXISTS " + db);
            }
        }
    }

    /** setCatalog(db), then setCatalog(null): "refused" or not, the getter, and the database SQL runs in. */
    private static String catalogAfterNull(Connection c, String db) throws SQLException {
        c.setCatalog(db);
        String refused;
        try {
            c.setCatalog(null);
            refused = "accepted";
        } catch (SQLException e) {
            refused = "refused";
        }
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT DATABASE()")) {
            rs.next();
            return refused + ", getCatalog " + c.getCatalog() + ", runs in " + rs.getString(1);
        }
    }

    /** MySQL Connector/J with {@code databaseTerm=SCHEMA} has no catalog: it ignores setCatalog, and so does the handle. */
    @ParameterizedTest
    @EnumSource(value = SeqTarget.class, names = "MYSQL_CJ")
    void aDriverWithoutCatalogsIgnoresSetCatalog(SeqTarget target) throws SQLException {
        String plainCatalog;
        try (Connection c = java.sql.DriverManager.getConnection(target.url() + "&databaseTerm=SCHEMA")) {
            c.setCatalog("mysql");
            plainCatalog = c.getCatalog();
        }
        LoomPoolDataSource ds = pool(target);
        ds.setJdbcUrl(target.url() + "&databaseTerm=SCHEMA");
        try (Connection c = ds.getConnection()) {
            c.setCatalog("mysql");
            assertThat(c.getCatalog()).isEqualTo(plainCatalog);
        }
    }

    private static void sql(Connection c, String text) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(text);
        }
    }

    /** The same, on a pool whose connections have autocommit off: the replay is committed before the handle's work. */
    @ParameterizedTest
    @EnumSource(SeqTarget.class)
    void aSchemaChosenOnAnAutocommitOffPoolOutlivesTheNextRollback(SeqTarget target) throws SQLException {
        makeSchema(target);
        Seen plain;
        try (Connection c = target.plain()) {
            c.setAutoCommit(false);
            c.setSchema(OTHER);
            c.commit();
            c.rollback();
            plain = seen(c, target);
            c.rollback();
        }
        LoomPoolDataSource ds = pool(target);
        ds.setAutoCommit(false);
        try (Connection c = ds.getConnection()) {
            c.setSchema(OTHER);
            c.commit();
            try (Statement held = c.createStatement()) { // keeps the binding across the rollback
                held.execute("SELECT 1");
                c.rollback();
                assertThat(seen(c, target)).isEqualTo(plain);
            }
            c.rollback();
            assertThat(seen(c, target)).as("on the next binding").isEqualTo(plain);
            c.rollback();
        }
    }

    /**
     * Runs {@code calls} on a plain connection and on a handle of a pool of one connection, in each
     * release mode; the handle says what the plain one says, right after the calls (still bound, or
     * released and bound anew by the look), and again after a rollback.
     */
    private void sameAsPlain(SeqTarget target, Calls calls) throws SQLException {
        sameAsPlain(target, "", false, calls);
    }

    private void sameAsPlain(SeqTarget target, String urlOptions, boolean autoCommitOff, Calls calls) throws SQLException {
        makeSchema(target);
        Seen plain;
        try (Connection c = java.sql.DriverManager.getConnection(target.url() + urlOptions)) {
            if (autoCommitOff) {
                c.setAutoCommit(false);
            }
            calls.on(c);
            plain = seen(c, target);
            if (!c.getAutoCommit()) {
                c.rollback();
            }
        }
        for (ReleaseMode mode : ReleaseMode.values()) {
            LoomPoolDataSource ds = pool(target);
            ds.setJdbcUrl(target.url() + urlOptions);
            ds.setReleaseMode(mode);
            if (autoCommitOff) {
                ds.setAutoCommit(false);
            }
            try (Connection c = ds.getConnection()) {
                calls.on(c);
                assertThat(seen(c, target)).as("%s: after the calls", mode).isEqualTo(plain);
                if (!c.getAutoCommit()) {
                    c.rollback();
                }
                assertThat(c.getSchema()).as("%s: getSchema() once more", mode).isEqualTo(plain.schema());
                assertThat(seen(c, target)).as("%s: its next statements", mode).isEqualTo(plain);
                if (!c.getAutoCommit()) {
                    c.rollback();
                }
            }
        }
    }

    private static Seen seen(Connection c, SeqTarget target) throws SQLException {
        String schema = c.getSchema();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(target.postgres() ? "SHOW search_path" : "SELECT DATABASE()")) {
            rs.next();
            return new Seen(schema, rs.getString(1));
        }
    }

    private static void makeSchema(SeqTarget target) throws SQLException {
        if (target.postgres()) {
            try (Connection c = target.database.admin(); Statement s = c.createStatement()) {
                s.execute("CREATE SCHEMA IF NOT EXISTS " + OTHER);
            }
        }
    }

    private LoomPoolDataSource pool(SeqTarget target) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(target.url());
        ds.setPoolName("wt44-schema");
        ds.setMinSize(1);
        ds.setMaxSize(1);
        ds.setAcquireTimeout(Duration.ofSeconds(3));
        pools.add(ds);
        return ds;
    }
}
