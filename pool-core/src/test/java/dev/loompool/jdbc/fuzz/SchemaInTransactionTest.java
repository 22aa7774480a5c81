package dev.loompool.jdbc.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
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
     * Runs {@code calls} on a plain connection and on a handle of a pool of one connection; the
     * handle says what the plain one says, while the statement that keeps it bound is open, and
     * again once the handle was released and bound anew.
     */
    private void sameAsPlain(SeqTarget target, Calls calls) throws SQLException {
        makeSchema(target);
        Seen plain;
        try (Connection c = target.plain()) {
            calls.on(c);
            plain = seen(c, target);
            if (!c.getAutoCommit()) {
                c.rollback();
            }
        }
        LoomPoolDataSource ds = pool(target);
        try (Connection c = ds.getConnection()) {
            calls.on(c);
            assertThat(seen(c, target)).as("after the calls").isEqualTo(plain);
            if (!c.getAutoCommit()) {
                c.rollback();
            }
            assertThat(c.getSchema()).as("getSchema() once more, on whichever binding").isEqualTo(plain.schema());
            assertThat(seen(c, target)).as("its next statements").isEqualTo(plain);
            if (!c.getAutoCommit()) {
                c.rollback();
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
