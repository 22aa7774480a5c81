package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.ManualClockAccess;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A sequence's value read through a function on the real PostgreSQL (issue 38, item 2): borrower A
 * runs {@code nextval}, then one more statement, so that its handle keeps the connection no longer;
 * borrower B, on that connection, calls a function whose body reads {@code currval} or
 * {@code lastval}. A plain connection of B's own is refused ("currval … is not yet defined in this
 * session"): B must be refused too, never given A's value, as for a direct {@code currval}.
 */
@Timeout(120) // the manual clock never ends an acquire
class PostgresKeptValuesTest extends OnRealDatabases {

    private final String schema = "wt38b_kv_" + tag;
    private final String sq = schema + ".sq";
    private final ManualClockAccess clock = new ManualClockAccess();

    @BeforeEach
    void sequence() throws SQLException {
        pgCleanup.add("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        pgAdmin("CREATE SCHEMA " + schema);
        pgAdmin("CREATE SEQUENCE " + sq);
    }

    /** Function {@code name} of the test's schema returning {@code bigint}, whose body is {@code body}. */
    private String function(String name, String language, String volatility, String body) throws SQLException {
        String f = schema + "." + name + "_" + tag;
        pgAdmin("CREATE FUNCTION " + f + "() RETURNS bigint LANGUAGE " + language + " " + volatility + " AS $f$ " + body
                + " $f$");
        return f + "()";
    }

    private String readsCurrval(String how) throws SQLException {
        return switch (how) {
            case "sql stable" -> function("cur", "sql", "STABLE", "SELECT currval('" + sq + "')");
            case "sql volatile" -> function("cur", "sql", "VOLATILE", "SELECT currval('" + sq + "')");
            case "sql lastval" -> function("cur", "sql", "STABLE", "SELECT lastval()");
            case "sql begin atomic" -> {
                String f = schema + ".cur_" + tag;
                // in a DO block: pgjdbc 42.2's parser would split the body at its semicolon
                pgAdmin("DO $do$ BEGIN EXECUTE $x$CREATE FUNCTION " + f + "() RETURNS bigint LANGUAGE sql STABLE BEGIN ATOMIC "
                        + "SELECT currval('" + sq + "'); END$x$; END $do$");
                yield f + "()";
            }
            case "plpgsql" -> function("cur", "plpgsql", "STABLE", "BEGIN RETURN currval('" + sq + "'); END");
            case "plpgsql execute" -> function("cur", "plpgsql", "STABLE",
                    "DECLARE v bigint; BEGIN EXECUTE 'SELECT currval(''" + sq + "'')' INTO v; RETURN v; END");
            case "through another function" -> {
                String inner = function("inner", "sql", "STABLE", "SELECT currval('" + sq + "')");
                yield function("outer", "plpgsql", "STABLE", "BEGIN RETURN " + inner + " + 0; END");
            }
            default -> throw new IllegalArgumentException(how);
        };
    }

    /** A on the pool's only connection: nextval, then one more statement, and close. */
    private static void aTakesAValue(LoomPoolDataSource ds, String sq) throws SQLException {
        try (Connection a = ds.getConnection()) {
            num(a, "SELECT nextval('" + sq + "')");
            num(a, "SELECT 1");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sql stable", "sql volatile", "sql lastval", "sql begin atomic", "plpgsql", "plpgsql execute",
        "through another function"})
    void bCallingAFunctionThatReadsCurrvalIsRefusedAsOnAFreshSession(String how) throws SQLException {
        String f = readsCurrval(how);
        try (Connection plain = TestDatabase.POSTGRES.admin()) {
            assertThatThrownBy(() -> num(plain, "SELECT " + f)).as("a fresh session").isInstanceOf(SQLException.class)
                    .extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("55000");
        }
        LoomPoolDataSource ds = pg(1);
        long aBackend;
        try (Connection c = ds.getConnection()) {
            aBackend = pgPidUnpinned(c);
        }
        aTakesAValue(ds, sq);
        try (Connection b = ds.getConnection()) {
            assertThat(pgPidUnpinned(b)).as("B is on A's backend").isEqualTo(aBackend);
            assertThatThrownBy(() -> num(b, "SELECT " + f)).as("B reads no value of A's").isInstanceOf(SQLException.class)
                    .extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("55000");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sql stable", "plpgsql", "through another function"})
    void aHandleReadsItsOwnValueThroughTheFunctionAsOnThePlainDriver(String how) throws SQLException {
        String f = readsCurrval(how);
        LoomPoolDataSource ds = pg(1);
        try (Connection a = ds.getConnection()) {
            long mine = num(a, "SELECT nextval('" + sq + "')");
            assertThat(num(a, "SELECT " + f)).isEqualTo(mine);
        }
    }

    /** A function that sets the value itself before it reads it reads its own: it runs for anyone, as on a fresh session. */
    @Test
    void aFunctionThatTakesItsOwnValueFirstRunsForB() throws SQLException {
        String f = function("own", "plpgsql", "VOLATILE", "BEGIN PERFORM nextval('" + sq + "'); RETURN currval('" + sq + "'); END");
        LoomPoolDataSource ds = pg(1);
        aTakesAValue(ds, sq);
        try (Connection b = ds.getConnection()) {
            assertThat(num(b, "SELECT " + f)).isEqualTo(2);
        }
    }

    /** A function made by another client after the pool started is read with the catalog's next refresh. */
    @Test
    void aFunctionCreatedAfterTheStartIsKnownAfterTheRefresh() throws SQLException {
        LoomPoolDataSource ds = pg(1);
        ds.setClock(clock);
        aTakesAValue(ds, sq); // the pool's catalog is read: the function does not exist yet
        String f = readsCurrval("sql stable");
        clock.advance(Duration.ofMinutes(2));
        try (Connection c = ds.getConnection()) {
            num(c, "SELECT 1"); // the connection comes back after the minute: the catalog is read again
        }
        aTakesAValue(ds, sq);
        try (Connection b = ds.getConnection()) {
            assertThatThrownBy(() -> num(b, "SELECT " + f)).isInstanceOf(SQLException.class)
                    .extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("55000");
        }
    }

    /** The same made through the pool: the DDL asks for the read when its connection comes back. */
    @Test
    void aFunctionCreatedThroughThePoolIsKnownOnItsReturn() throws SQLException {
        LoomPoolDataSource ds = pg(1);
        aTakesAValue(ds, sq);
        String f = schema + ".cur_" + tag;
        try (Connection c = ds.getConnection()) {
            run(c, "CREATE FUNCTION " + f + "() RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT currval('" + sq + "') $$");
        }
        aTakesAValue(ds, sq);
        try (Connection b = ds.getConnection()) {
            assertThatThrownBy(() -> num(b, "SELECT " + f + "()")).isInstanceOf(SQLException.class)
                    .extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("55000");
        }
    }
}
