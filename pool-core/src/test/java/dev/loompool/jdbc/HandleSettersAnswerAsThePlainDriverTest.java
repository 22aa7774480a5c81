package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * Handle state and "getters tell the truth": a JDBC setter called on a handle, bound or not, inside
 * a transaction or not (setSchema, setTransactionIsolation, setReadOnly), is refused or taken as the plain
 * driver does, its getter answers as the plain driver's, and A commits exactly what the plain driver
 * commits; B gets the defaults back.
 */
class HandleSettersAnswerAsThePlainDriverTest extends OnRealDatabases {

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
}
