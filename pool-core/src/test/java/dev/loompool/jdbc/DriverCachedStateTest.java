package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.postgresql.util.PGobject;

/**
 * Driver-side state: what pgjdbc, MariaDB Connector/J and MySQL Connector/J keep per physical
 * connection (type names, server prepared statements, the database they think they are in), and what
 * the pool's reset undoes of it (issue 38). Borrower A does something; B, on the pool's only
 * connection, must see what a plain connection of its own sees.
 */
class DriverCachedStateTest extends OnRealDatabases {

    private final String schemaA = "wt38x_" + tag + "_a";
    private final String schemaB = "wt38x_" + tag + "_b";
    private final String type = "v_" + tag;

    /** Two tenants, each with a domain named alike: numeric(12,0) in A's, numeric(12,2) in B's. */
    private void tenants() throws SQLException {
        for (String s : new String[] {schemaA, schemaB}) {
            pgCleanup.add("DROP SCHEMA IF EXISTS " + s + " CASCADE");
            pgAdmin("CREATE SCHEMA " + s);
            pgAdmin("CREATE DOMAIN " + s + "." + type + " AS numeric(12," + (s.equals(schemaA) ? "0" : "2") + ")");
            pgAdmin("CREATE TABLE " + s + ".t (x " + s + "." + type + ")");
        }
    }

    private void insertTyped(Connection c, String value) throws SQLException {
        PGobject o = new PGobject();
        o.setType(type);
        o.setValue(value);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO t (x) VALUES (?)")) {
            ps.setObject(1, o);
            ps.executeUpdate();
        }
    }

    private String stored(String schema) throws SQLException {
        try (Connection admin = TestDatabase.POSTGRES.admin()) {
            return str(admin, "SELECT coalesce(string_agg(x::text, ','), 'none') FROM " + schema + ".t");
        }
    }

    /** B's part, the same on the pool and on the plain driver: its tenant's path, its value typed by name. */
    private void bInserts(Connection b) throws SQLException {
        b.setSchema(schemaB);
        insertTyped(b, "12.34");
    }

    private String plainB() throws SQLException {
        try (Connection plain = TestDatabase.POSTGRES.admin()) {
            bInserts(plain);
        }
        String seen = stored(schemaB);
        pgAdmin("DELETE FROM " + schemaB + ".t");
        return seen;
    }

    /** How A's session ends up on its tenant's path without naming the path in its SQL. */
    enum HiddenPath {
        /** A view whose definition calls set_config: {@code SELECT * FROM tenant_view}. */
        A_VIEW,
        /** A column default that calls set_config: {@code INSERT INTO tenant_log (id) VALUES (1)}. */
        A_COLUMN_DEFAULT
    }

    private void hiddenPath(HiddenPath how) throws SQLException {
        if (how == HiddenPath.A_VIEW) {
            pgAdmin("CREATE VIEW " + schemaA + ".tenant_view AS SELECT set_config('search_path', '" + schemaA
                    + "', false) AS p");
        } else {
            pgAdmin("CREATE TABLE " + schemaA + ".tenant_log (id int, p text DEFAULT set_config('search_path', '"
                    + schemaA + "', false))");
        }
    }

    private void aTakesHiddenPath(Connection a, HiddenPath how) throws SQLException {
        if (how == HiddenPath.A_VIEW) {
            str(a, "SELECT p FROM " + schemaA + ".tenant_view");
        } else {
            run(a, "INSERT INTO " + schemaA + ".tenant_log (id) VALUES (1)");
        }
    }

    /**
     * A's path is set by the SQL the server runs for a relation (a view's definition, a column
     * default), which the pool reads from the catalog and pins for, but does not count as a change
     * of the search path: DISCARD ALL puts the server's path back, pgjdbc's type names stay as A's
     * path resolved them, and B's 12.34 typed by name goes to A's numeric(12,0) domain's oid.
     */
    @ParameterizedTest
    @EnumSource(HiddenPath.class)
    void aPathSetByARelationsSqlLeavesBItsOwnTypes(HiddenPath how) throws SQLException {
        tenants();
        hiddenPath(how);
        assertThat(plainB()).isEqualTo("12.34");
        LoomPoolDataSource ds = pg(1);
        pgAThenB(ds, a -> {
            aTakesHiddenPath(a, how);
            assertThat(str(a, "SHOW search_path")).as("A is on its tenant's path (premise)").isEqualTo(schemaA);
            insertTyped(a, "12.34");
        }, this::bInserts);
        assertThat(stored(schemaA)).as("what A committed, in its numeric(12,0)").isEqualTo("12");
        assertThat(stored(schemaB)).as("what B committed, as on a plain connection").isEqualTo("12.34");
    }

    /**
     * Server-prepared statements (prepareThreshold=1): A prepares the unqualified insert under its
     * path; B runs the same text under its own path. pgjdbc keeps the statement on the server, the
     * reset's DISCARD ALL drops it: B's row lands in B's table, with B's scale.
     */
    @Test
    void aServerPreparedStatementUnderAsPathDoesNotRunForB() throws SQLException {
        tenants();
        Use insert = c -> {
            for (int i = 0; i < 3; i++) {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO t (x) VALUES (?)")) {
                    ps.setBigDecimal(1, new BigDecimal("12.34"));
                    ps.executeUpdate();
                }
            }
        };
        LoomPoolDataSource ds = pg(1);
        ds.setJdbcUrl(TestDatabase.POSTGRES.url() + "&prepareThreshold=1");
        pgAThenB(ds, a -> {
            a.setSchema(schemaA);
            insert.on(a);
        }, b -> {
            run(b, "SET search_path TO " + schemaB);
            insert.on(b);
        });
        assertThat(stored(schemaA)).isEqualTo("12,12,12");
        assertThat(stored(schemaB)).isEqualTo("12.34,12.34,12.34");
    }

    /**
     * Both Connector/Js with server prepared statements cached by the driver: A's user variable
     * makes the pool reset the session (COM_RESET_CONNECTION drops the server's prepared
     * statements). B prepares the same text: it must run, as on a plain connection, and not see
     * A's variable.
     */
    @Test
    void mariaDbConnectorJsCachedServerPreparedStatementRunsAfterTheReset() throws SQLException {
        bsCachedServerPreparedStatementRunsAfterTheReset(Connector.MARIADB_CONNECTOR_J);
    }

    /**
     * MySQL Connector/J keeps its cached ServerPreparedStatement (and the server's statement id)
     * across {@code resetServerState()}, whose COM_RESET_CONNECTION dropped that id on the server:
     * B's prepareStatement of the same text gets the cached one and fails ("Unknown prepared
     * statement handler (…) given to mysqld_stmt_execute", HY000) where a plain connection runs it.
     */
    @Test
    void mysqlConnectorJsCachedServerPreparedStatementRunsAfterTheReset() throws SQLException {
        bsCachedServerPreparedStatementRunsAfterTheReset(Connector.MYSQL_CONNECTOR_J);
    }

    private void bsCachedServerPreparedStatementRunsAfterTheReset(Connector connector) throws SQLException {
        mariaTable();
        mariaAdmin("INSERT INTO " + table + " (v) VALUES (7)");
        String options = "useServerPrepStmts=true&cachePrepStmts=true";
        Look look = c -> {
            StringBuilder seen = new StringBuilder();
            for (int i = 0; i < 2; i++) {
                try (PreparedStatement ps = c.prepareStatement("SELECT v, @wt38x_secret FROM " + table + " WHERE v = ?")) {
                    ps.setInt(1, 7);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        seen.append(rs.getInt(1)).append('/').append(rs.getString(2)).append(' ');
                    }
                }
            }
            return seen.toString().trim();
        };
        String plain;
        try (Connection c = DriverManager.getConnection(connector.url(options))) {
            plain = look.on(c);
        }
        assertThat(plain).isEqualTo("7/null 7/null");
        LoomPoolDataSource ds = maria(connector, 1, options);
        Seen b = mariaAfterA(ds, a -> {
            run(a, "SET @wt38x_secret = 'A''s'");
            look.on(a);
        }, look);
        assertThat(b.value()).as("%s", b).isEqualTo(plain);
    }

    /** How A leaves the pool's database, by SQL the driver does not parse as a plain USE. */
    enum Leave {
        USE_IN_A_MULTI_STATEMENT_TEXT, BACKTICKED_USE_AFTER_A_COMMENT, SET_CATALOG_THEN_USE_BACK_THEN_USE_OTHER
    }

    /**
     * MySQL Connector/J with {@code useLocalSessionState=true}: A leaves for another database. B
     * then asks the driver where it is ({@code getCatalog()}), chooses that other database itself
     * by {@code setCatalog} and inserts unqualified: as on a plain connection, its row must land in
     * the database it chose, and the driver must not answer A's database as B's.
     */
    @ParameterizedTest
    @EnumSource(Leave.class)
    void bsSetCatalogAfterAsUseReachesTheServer(Leave leave) throws SQLException {
        String other = "wt38x_db_" + tag;
        mariaAdmin("CREATE DATABASE " + other);
        mariaCleanup.add("DROP DATABASE IF EXISTS " + other);
        mariaTable();
        mariaAdmin("CREATE TABLE " + other + "." + table + " (id int AUTO_INCREMENT PRIMARY KEY, v int)");
        String options = "useLocalSessionState=true&allowMultiQueries=true";
        Look look = c -> {
            String before = c.getCatalog() + "|" + str(c, "SELECT DATABASE()");
            c.setCatalog(other);
            run(c, "INSERT INTO " + table + " (v) VALUES (2)");
            return before + " then " + c.getCatalog() + "|" + str(c, "SELECT DATABASE()");
        };
        String plain;
        try (Connection c = DriverManager.getConnection(Connector.MYSQL_CONNECTOR_J.url(options))) {
            plain = look.on(c);
        }
        mariaAdmin("DELETE FROM " + other + "." + table);
        LoomPoolDataSource ds = maria(Connector.MYSQL_CONNECTOR_J, 1, options);
        Seen b = mariaAfterA(ds, a -> {
            switch (leave) {
                case USE_IN_A_MULTI_STATEMENT_TEXT -> run(a, "SELECT 1; USE " + other + "; SELECT 2");
                case BACKTICKED_USE_AFTER_A_COMMENT -> run(a, "/* tenant */ USE `" + other + "`");
                default -> {
                    a.setCatalog(other);
                    run(a, "USE test");
                    run(a, "USE " + other);
                }
            }
            assertThat(str(a, "SELECT DATABASE()")).as("A is in the other database (premise)").isEqualTo(other);
        }, look);
        assertThat(b.value()).as("%s", b).isEqualTo(plain);
        try (Connection admin = TestDatabase.MARIADB.admin()) {
            assertThat(num(admin, "SELECT count(*) FROM " + other + "." + table)).as("B's row in the database B chose")
                    .isEqualTo(1);
        }
        assertThat(mariaRows()).as("B's row in the pool's database").isZero();
    }
}
