package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static dev.loompool.jdbc.WritePathProbes.*;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Which INSERTs leave a value is read from PostgreSQL's catalog (DESIGN.md §4, "Per-statement values"
 * and "Classifying SQL"): an INSERT into a table whose INSERT takes a nextval, however the catalog
 * hides it (a default function, an index expression, a partition, a domain, a view, a rule, DDL
 * inside or outside the pool), keeps A's value noted, so that B's opaque function reading lastval()
 * finds none of it.
 */
class PostgresCatalogKnowsWhichInsertsTakeAValueTest extends OnRealDatabases {

    /**
     * Tables the catalog calls quiet whose INSERT takes a nextval all the same: A's value is left
     * unnoted, so the discard before B's opaque function does not run.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"stable default function", "immutable index expression", "column added outside the pool"})
    void pgAnInsertTheCatalogCallsQuietLeavesAsValueForB(String how) throws SQLException {
        pgWritePathObjects();
        String quiet = table + "_q";
        pgCleanup.add(0, "DROP TABLE IF EXISTS " + quiet + " CASCADE");
        pgCleanup.add("DROP FUNCTION IF EXISTS " + quiet + "_f(), " + quiet + "_i(int) CASCADE");
        switch (how) {
            case "stable default function" -> {
                pgAdmin("CREATE FUNCTION " + quiet + "_f() RETURNS int STABLE LANGUAGE sql AS $f$ SELECT nextval('" + seq
                        + "')::int $f$");
                pgAdmin("CREATE TABLE " + quiet + " (id int DEFAULT " + quiet + "_f(), v int)");
            }
            case "immutable index expression" -> {
                pgAdmin("CREATE FUNCTION " + quiet + "_i(x int) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $f$ BEGIN"
                        + " PERFORM nextval('" + seq + "'); RETURN x; END $f$");
                pgAdmin("CREATE TABLE " + quiet + " (v int)");
                pgAdmin("CREATE INDEX ON " + quiet + " (" + quiet + "_i(v))");
            }
            default -> pgAdmin("CREATE TABLE " + quiet + " (v int)");
        }
        LoomPoolDataSource ds = pg(1);
        try (Connection started = ds.getConnection()) {
            run(started, "SELECT 1"); // the catalog is read: the table is quiet
        }
        if (how.equals("column added outside the pool")) {
            pgAdmin("ALTER TABLE " + quiet + " ADD COLUMN id serial"); // a migration tool's own connection
        }
        Seen seen = pgAfterA(ds, a -> run(a, "INSERT INTO " + quiet + " (v) VALUES (1)"),
                b -> answer(c -> str(c, "SELECT " + peekVolatile), b));
        assertThat(seen.value()).as("%s", seen).isIn("ERR 55000", REFUSED);
    }

    /** DDL through the pool on a handle that keeps its connection: the catalog is read again only when it comes back. */
    @Test
    void pgAColumnAddedThroughAPinnedHandleLeavesAsValueForB() throws SQLException {
        pgWritePathObjects();
        String quiet = table + "_q";
        pgCleanup.add(0, "DROP TABLE IF EXISTS " + quiet);
        pgAdmin("CREATE TABLE " + quiet + " (v int)");
        LoomPoolDataSource ds = pg(2);
        try (Connection x = ds.getConnection(); Connection y = ds.getConnection()) {
            run(x, "SELECT 1");
            run(y, "SELECT 1"); // two connections, both idle
        }
        try (Connection x = ds.getConnection()) {
            x.unwrap(LoomConnection.class).pin(); // e.g. a migration run on a session it set up
            run(x, "ALTER TABLE " + quiet + " ADD COLUMN id serial");
            long aBackend;
            try (Connection a = ds.getConnection()) {
                run(a, "INSERT INTO " + quiet + " (v) VALUES (1)");
                aBackend = pgPidUnpinned(a);
            }
            try (Connection b = ds.getConnection()) {
                assertThat(pgPidUnpinned(b)).as("B is on A's backend").isEqualTo(aBackend);
                assertThat(answer(c -> str(c, "SELECT " + peekVolatile), b)).as("B's function, the plain driver failing")
                        .isIn("ERR 55000", REFUSED);
            }
        }
    }

    /** Tables whose INSERT takes a nextval that the catalog must see: B's opaque function finds none of A's value. */
    static Stream<Arguments> keyedTables() {
        return Stream.of(
                Arguments.of("partition of a serial parent", new String[] {
                    "CREATE TABLE %s_x (id serial, v int) PARTITION BY RANGE (v)",
                    "CREATE TABLE %s_y PARTITION OF %<s_x FOR VALUES FROM (0) TO (100)"}, "%s_y"),
                Arguments.of("partition whose parent has a trigger", new String[] {
                    "CREATE TABLE %s_x (v int) PARTITION BY RANGE (v)",
                    "CREATE TABLE %s_y PARTITION OF %<s_x FOR VALUES FROM (0) TO (100)",
                    "CREATE FUNCTION %s_x_f() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN PERFORM nextval('%<s_sq');"
                            + " RETURN NEW; END $f$",
                    "CREATE TRIGGER %s_g BEFORE INSERT ON %<s_x FOR EACH ROW EXECUTE FUNCTION %<s_x_f()"}, "%s_y"),
                Arguments.of("domain over a domain with a default", new String[] {
                    "CREATE DOMAIN %s_d1 AS int DEFAULT nextval('%<s_sq')", "CREATE DOMAIN %s_d2 AS %<s_d1",
                    "CREATE TABLE %s_x (id %<s_d2, v int)"}, "%s_x"),
                Arguments.of("view over a serial table", new String[] {
                    "CREATE TABLE %s_x (id serial, v int)", "CREATE VIEW %s_v AS SELECT * FROM %<s_x"}, "%s_v"),
                Arguments.of("inheriting child", new String[] {
                    "CREATE TABLE %s_x (id serial, v int)", "CREATE TABLE %s_y () INHERITS (%<s_x)"}, "%s_y"),
                Arguments.of("same name, quiet in one schema", new String[] {
                    "CREATE SCHEMA %s_a", "CREATE SCHEMA %s_b", "CREATE TABLE %s_a.%<s_t (v int)",
                    "CREATE TABLE %s_b.%<s_t (id serial, v int)"}, "%s_b.%<s_t"),
                Arguments.of("quoted mixed-case name beside a quiet one", new String[] {
                    "CREATE TABLE \"%s_Qm\" (id serial, v int)", "CREATE TABLE %s_qm (v int)"}, "\"%s_Qm\""),
                Arguments.of("rule", new String[] {
                    "CREATE TABLE %s_x (v int)", "CREATE RULE %s_r AS ON INSERT TO %<s_x DO ALSO SELECT nextval('%<s_sq')"},
                        "%s_x"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("keyedTables")
    void pgAnInsertIntoATableTheCatalogSeesAsKeyedLeavesNothingForB(String what, String[] setup, String target)
            throws SQLException {
        pgWritePathObjects();
        pgCleanup.add(0, String.format("DROP SCHEMA IF EXISTS %s_a, %<s_b CASCADE", table));
        pgCleanup.add(0, String.format("DROP TABLE IF EXISTS %s_x, %<s_y, \"%<s_Qm\", %<s_qm CASCADE", table));
        pgCleanup.add(String.format("DROP FUNCTION IF EXISTS %s_x_f() CASCADE", table));
        pgCleanup.add(String.format("DROP DOMAIN IF EXISTS %s_d2, %<s_d1 CASCADE", table));
        for (String sql : setup) {
            pgAdmin(String.format(sql, table));
        }
        String insert = "INSERT INTO " + String.format(target, table) + " (v) VALUES (1)";
        Seen seen = pgAfterA(pg(1), a -> {
            run(a, insert);
            assertThat(num(a, "SELECT lastval()")).as("A's own value, read as on the plain driver").isPositive();
        }, b -> answer(c -> str(c, "SELECT " + peekVolatile), b));
        assertThat(seen.value()).as("%s", seen).isIn("ERR 55000", REFUSED);
    }

    /** DDL through the pool, its handle closed: the catalog is read again before anyone inserts. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ADD COLUMN serial", "a keyed table of the same name in another schema", "a temporary table that shadows"})
    void pgDdlThroughThePoolMakesTheNextInsertKeepItsValue(String how) throws SQLException {
        pgWritePathObjects();
        String quiet = table + "_q";
        pgCleanup.add(0, "DROP SCHEMA IF EXISTS " + table + "_b CASCADE");
        pgCleanup.add(0, "DROP TABLE IF EXISTS " + quiet);
        pgAdmin("CREATE TABLE " + quiet + " (v int)");
        String[] ddl = switch (how) {
            case "ADD COLUMN serial" -> new String[] {"ALTER TABLE " + quiet + " ADD COLUMN id serial"};
            case "a keyed table of the same name in another schema" -> new String[] {"CREATE SCHEMA " + table + "_b",
                "CREATE TABLE " + table + "_b." + quiet + " (id serial, v int)"};
            default -> new String[0];
        };
        String[] aRuns = switch (how) {
            case "ADD COLUMN serial" -> new String[] {"INSERT INTO " + quiet + " (v) VALUES (1)"};
            case "a keyed table of the same name in another schema" -> new String[] {
                "INSERT INTO " + table + "_b." + quiet + " (v) VALUES (1)"};
            default -> new String[] {"CREATE TEMPORARY TABLE " + quiet + " (id serial, v int)", // pg_temp comes first
                "INSERT INTO " + quiet + " (v) VALUES (1)"};
        };
        LoomPoolDataSource ds = pg(1);
        try (Connection migration = ds.getConnection()) {
            run(migration, "SELECT 1"); // the catalog is read: the table is quiet
            for (String sql : ddl) {
                run(migration, sql);
            }
        }
        Seen seen = pgAfterA(ds, a -> {
            for (String sql : aRuns) {
                run(a, sql);
            }
        }, b -> answer(c -> str(c, "SELECT " + peekVolatile), b));
        assertThat(seen.value()).as("%s", seen).isIn("ERR 55000", REFUSED);
    }
}
