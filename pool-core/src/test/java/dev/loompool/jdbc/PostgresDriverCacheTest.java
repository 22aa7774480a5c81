package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.postgresql.util.PGobject;

/**
 * pgjdbc's cache of type names (its {@code TypeInfoCache}, one per physical connection) on the
 * real PostgreSQL (issue 38, item 1): schema per tenant, each with its own type of the same name.
 * Borrower A sets its tenant's search path and sends a parameter typed by name; the driver keeps
 * the name's oid as A's path resolved it. Borrower B, on the same connection, sets its own
 * tenant's path and sends the same: it must reach B's type, as on a plain connection of its own,
 * and not A's (a domain {@code numeric(12,0)} in A's schema and {@code numeric(12,2)} in B's
 * stored B's 12.34 as 12, with no error).
 */
class PostgresDriverCacheTest extends OnRealDatabases {

    private final String schemaA = "wt38b_" + tag + "_a";
    private final String schemaB = "wt38b_" + tag + "_b";
    /** The type's name, the same in each schema (and unique to this test). */
    private final String type = "v_" + tag;
    private final String enumType = "e_" + tag;

    /** The application's function that sets a tenant's path, as some multi-tenant code does. */
    private final String setter = schemaA + ".use_tenant";

    @BeforeEach
    void tenants() throws SQLException {
        for (String s : new String[] {schemaA, schemaB}) {
            pgCleanup.add("DROP SCHEMA IF EXISTS " + s + " CASCADE");
            pgAdmin("CREATE SCHEMA " + s);
            String scale = s.equals(schemaA) ? "0" : "2";
            pgAdmin("CREATE DOMAIN " + s + "." + type + " AS numeric(12," + scale + ")");
            pgAdmin("CREATE TYPE " + s + "." + enumType + " AS ENUM ('red', 'green')");
            pgAdmin("CREATE TABLE " + s + ".t (x " + s + "." + type + ", xs " + s + "." + type + "[], e " + s + "."
                    + enumType + ")");
        }
        pgAdmin("CREATE FUNCTION " + setter + "(tenant text) RETURNS text LANGUAGE plpgsql AS $$ BEGIN "
                + "RETURN set_config('search_path', tenant, false); END $$");
    }

    /** How a borrower sets its tenant's search path. */
    enum PathBy {
        SET_SCHEMA, SET_SEARCH_PATH, SET_CONFIG, SET_LOCAL_IN_A_TRANSACTION, A_FUNCTION_OF_THE_APPLICATION;

        /** {@code setter}: the application's function that sets the path ({@link #tenants}). */
        void on(Connection c, String schema, String setter) throws SQLException {
            switch (this) {
                case A_FUNCTION_OF_THE_APPLICATION -> str(c, "SELECT " + setter + "('" + schema + "')");
                case SET_SCHEMA -> c.setSchema(schema);
                case SET_SEARCH_PATH -> run(c, "SET search_path TO " + schema);
                case SET_CONFIG -> str(c, "SELECT set_config('search_path', '" + schema + "', false)");
                case SET_LOCAL_IN_A_TRANSACTION -> {
                    c.setAutoCommit(false);
                    run(c, "SET LOCAL search_path TO " + schema);
                }
            }
        }

        void done(Connection c) throws SQLException {
            if (this == SET_LOCAL_IN_A_TRANSACTION) {
                c.commit();
            }
        }
    }

    /** Inserts {@code value} typed by the unqualified name {@code type} into t of the path's schema. */
    private void insertTyped(Connection c, String column, String type, String value) throws SQLException {
        insertTyped(c, "t", column, type, value);
    }

    private void insertTyped(Connection c, String table, String column, String type, String value) throws SQLException {
        PGobject o = new PGobject();
        o.setType(type);
        o.setValue(value);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (" + column + ") VALUES (?)")) {
            ps.setObject(1, o);
            ps.executeUpdate();
        }
    }

    private void insertArray(Connection c, String value) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO t (xs) VALUES (?)")) {
            Array a = c.createArrayOf(type, new Object[] {new java.math.BigDecimal(value)});
            ps.setArray(1, a);
            ps.executeUpdate();
        }
    }

    /** What tenant {@code schema}'s table holds in {@code column}, as an independent session sees it. */
    private String stored(String schema, String column) throws SQLException {
        try (Connection admin = TestDatabase.POSTGRES.admin()) {
            return str(admin, "SELECT coalesce(string_agg(" + column + "::text, ','), 'none') FROM " + schema + ".t");
        }
    }

    /** The plain driver: B's insert on a connection of its own, the reference; its row is then removed. */
    private String plainB(PathBy how, Use insert, String column) throws SQLException {
        try (Connection plain = TestDatabase.POSTGRES.admin()) {
            how.on(plain, schemaB, setter);
            insert.on(plain);
            how.done(plain);
        }
        String seen = stored(schemaB, column);
        pgAdmin("DELETE FROM " + schemaB + ".t");
        return seen;
    }

    @ParameterizedTest
    @EnumSource(PathBy.class)
    void bsValueTypedByNameReachesBsDomainNotAsDomainCachedOnTheConnection(PathBy how) throws SQLException {
        assertThat(plainB(how, c -> insertTyped(c, "x", type, "12.34"), "x")).isEqualTo("12.34");
        LoomPoolDataSource ds = pg(1);
        pgAThenB(ds, a -> {
            how.on(a, schemaA, setter);
            insertTyped(a, "x", type, "12.34");
            how.done(a);
        }, b -> {
            how.on(b, schemaB, setter);
            insertTyped(b, "x", type, "12.34");
            how.done(b);
        });
        assertThat(stored(schemaA, "x")).as("what A committed, in its numeric(12,0)").isEqualTo("12");
        assertThat(stored(schemaB, "x")).as("what B committed, as on a plain connection").isEqualTo("12.34");
    }

    @ParameterizedTest
    @EnumSource(value = PathBy.class, names = {"SET_SCHEMA", "SET_SEARCH_PATH"})
    void bsArrayOfATypeNamedLikeAsReachesBsType(PathBy how) throws SQLException {
        assertThat(plainB(how, c -> insertArray(c, "12.34"), "xs")).isEqualTo("{12.34}");
        LoomPoolDataSource ds = pg(1);
        pgAThenB(ds, a -> {
            how.on(a, schemaA, setter);
            insertArray(a, "12.34");
        }, b -> {
            how.on(b, schemaB, setter);
            insertArray(b, "12.34");
        });
        assertThat(stored(schemaA, "xs")).isEqualTo("{12}");
        assertThat(stored(schemaB, "xs")).isEqualTo("{12.34}");
    }

    @Test
    void bsEnumValueTypedByNameIsStoredAsOnAPlainConnection() throws SQLException {
        assertThat(plainB(PathBy.SET_SCHEMA, c -> insertTyped(c, "e", enumType, "green"), "e")).isEqualTo("green");
        LoomPoolDataSource ds = pg(1);
        // the old code: B's insert failed, column "e" is of type e_… but expression is of type wt38b_…_a.e_…
        pgAThenB(ds, a -> {
            a.setSchema(schemaA);
            insertTyped(a, "e", enumType, "red");
        }, b -> {
            b.setSchema(schemaB);
            insertTyped(b, "e", enumType, "green");
        });
        assertThat(stored(schemaA, "e")).isEqualTo("red");
        assertThat(stored(schemaB, "e")).isEqualTo("green");
    }

    /**
     * A sets its schema, then sets it back to the pool's default on the same handle: the driver's
     * names stay as A's path resolved them all the same. B then sets its own.
     */
    @Test
    void aSchemaSetAndSetBackStillLeavesBItsOwnTypes() throws SQLException {
        LoomPoolDataSource ds = pg(1);
        String home;
        try (Connection c = ds.getConnection()) {
            home = c.getSchema();
        }
        pgAThenB(ds, a -> {
            a.setSchema(schemaA);
            insertTyped(a, "x", type, "12.34");
            a.setSchema(home);
        }, b -> {
            b.setSchema(schemaB);
            insertTyped(b, "x", type, "12.34");
        });
        assertThat(stored(schemaB, "x")).isEqualTo("12.34");
    }

    /** A borrower that never changed the search path keeps the connection's names: nothing to forget. */
    @Test
    void aCycleThatChangedNoSearchPathLeavesTheConnectionAsItWas() throws SQLException {
        LoomPoolDataSource ds = pg(1);
        pgAThenB(ds, a -> insertTyped(a, schemaA + ".t", "x", schemaA + "." + type, "1.5"), b -> {
            try (Statement st = b.createStatement()) {
                st.execute("SELECT 1");
            }
        });
        assertThat(stored(schemaA, "x")).isEqualTo("2");
    }
}
