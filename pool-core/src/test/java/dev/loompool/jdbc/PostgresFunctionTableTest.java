package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * The server's word on functions (issue 27): what PostgreSQL's catalog says may change the session
 * keeps the connection, even where the SQL text names no function the pool was told of. A did
 * this; which search_path does B get?
 */
class PostgresFunctionTableTest extends OnRealDatabases {

    private final String schema = "loompool_ft_" + tag;

    private String setsSearchPath() {
        return "SELECT set_config('search_path', '" + schema + "', false)";
    }

    private void bGetsTheDefaultSearchPath(LoomPoolDataSource ds) throws SQLException {
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, "SELECT current_setting('search_path')")).as("B's search_path").doesNotContain(schema);
        }
    }

    private void schemaOfTheTest() throws SQLException {
        pgAdmin("CREATE SCHEMA " + schema);
        pgCleanup.add("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    @Test
    void aFunctionMadeVolatileThroughThePoolKeepsTheConnectionFromTheNextReturnOn() throws SQLException {
        schemaOfTheTest();
        String f = schema + ".f_" + tag + "()"; // a name of its own: a volatile f() in any schema would count
        pgAdmin("CREATE FUNCTION " + f + " RETURNS text STABLE LANGUAGE sql AS $$ SELECT 'harmless'::text $$");
        LoomPoolDataSource ds = pg(1);
        try (Connection a = ds.getConnection()) {
            run(a, "SELECT " + f);
            assertThat(a.unwrap(LoomConnection.class).isBound()).as("a stable function lets the connection go").isFalse();
            run(a, "CREATE OR REPLACE FUNCTION " + f + " RETURNS text VOLATILE LANGUAGE sql AS $$ "
                    + setsSearchPath() + " $$");
        }
        try (Connection a = ds.getConnection()) {
            run(a, "SELECT " + f);
            assertThat(a.unwrap(LoomConnection.class).isBound()).as("the function is volatile now").isTrue();
        }
        bGetsTheDefaultSearchPath(ds);
    }

    @Test
    void aViewWhoseRuleSetsTheSessionKeepsTheConnection() throws SQLException {
        schemaOfTheTest();
        pgAdmin("CREATE VIEW " + schema + ".v AS " + setsSearchPath() + " AS x");
        pgAdmin("CREATE VIEW " + schema + ".over_v AS SELECT * FROM " + schema + ".v");
        LoomPoolDataSource ds = pg(1);
        for (String view : new String[] {"v", "over_v"}) {
            try (Connection a = ds.getConnection()) {
                run(a, "SELECT x FROM " + schema + "." + view);
            }
            bGetsTheDefaultSearchPath(ds);
        }
    }

    @Test
    void aFunctionCalledAsAnAttributeKeepsTheConnection() throws SQLException {
        schemaOfTheTest();
        pgAdmin("CREATE TABLE " + schema + ".t (id int)");
        pgAdmin("INSERT INTO " + schema + ".t VALUES (1)");
        pgAdmin("CREATE FUNCTION " + schema + ".leak_" + tag + "(" + schema + ".t) RETURNS text VOLATILE LANGUAGE sql AS $$ "
                + setsSearchPath() + " $$");
        LoomPoolDataSource ds = inSchema();
        try (Connection a = ds.getConnection()) {
            run(a, "SELECT t.leak_" + tag + " FROM t");
        }
        bKeepsTheSearchPathOfTheUrl(ds);
    }

    @Test
    void anOperatorWhoseFunctionSetsTheSessionKeepsTheConnection() throws SQLException {
        schemaOfTheTest();
        pgAdmin("CREATE FUNCTION " + schema + ".op(int, int) RETURNS int VOLATILE LANGUAGE sql AS $$ "
                + setsSearchPath() + "; SELECT $1 + $2 $$");
        pgAdmin("CREATE OPERATOR " + schema + ".!#! (LEFTARG = int, RIGHTARG = int, FUNCTION = " + schema + ".op)");
        LoomPoolDataSource ds = inSchema();
        try (Connection a = ds.getConnection()) {
            assertThat(num(a, "SELECT 1 !#! 2")).isEqualTo(3);
        }
        bKeepsTheSearchPathOfTheUrl(ds);
    }

    /** A pool whose URL puts the test's schema first, so that its functions and operators are found unqualified. */
    private LoomPoolDataSource inSchema() {
        return pool(TestDatabase.POSTGRES, 1, "&currentSchema=" + schema + ",public", null);
    }

    private static void bKeepsTheSearchPathOfTheUrl(LoomPoolDataSource ds) throws SQLException {
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, "SELECT current_setting('search_path')")).as("B's search_path, as the URL set it")
                    .contains("public");
        }
    }
}
