package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The PostgreSQL classes of issue 27, the acceptance tests of the allowlist classifier: borrower
 * A runs SQL the denylist took for neutral and closes its handle; borrower B gets the pool's only
 * connection (maxSize 1). What B sees, and what B really commits (seen from an independent
 * session), must be what a fresh plain driver connection gives.
 */
class PostgresAllowlistTest extends OnRealDatabases {

    private static final String FRESH_SEARCH_PATH = "\"$user\", public";

    // ---- functions that run SQL text -----------------------------------------------------------------

    /** query_to_xml runs its text: a set_config inside it is the session's, for the next borrower too. */
    @Test
    void aSetConfigRunByQueryToXmlDoesNotReachTheNextBorrower() throws SQLException {
        String sql = "SELECT query_to_xml('SELECT set_config(''search_path'', ''loompool_atk_x'', false)', true, true, '')";
        assertSearchPathNotLeft(sql);
    }

    /** ts_stat runs its text too: a set_config inside to_tsvector(…) changes A's session. */
    @Test
    void aSetConfigRunByTsStatDoesNotReachTheNextBorrower() throws SQLException {
        String sql = "SELECT * FROM ts_stat('SELECT to_tsvector(set_config(''search_path'', ''loompool_atk_x'', false))')";
        assertSearchPathNotLeft(sql);
    }

    private void assertSearchPathNotLeft(String sql) throws SQLException {
        try (Connection plain = TestDatabase.POSTGRES.admin()) {
            run(plain, sql);
            assertThat(str(plain, "SHOW search_path")).as("the text sets A's search_path (test premise)")
                    .isEqualTo("loompool_atk_x");
        }
        Seen b = pgAfterA(pg(1), a -> run(a, sql), c -> str(c, "SHOW search_path"));
        assertThat(b.value()).as("%s: B must get a fresh session's search_path, not the one A set", b)
                .isEqualTo(FRESH_SEARCH_PATH);
    }

    /**
     * An advisory lock taken by a query query_to_xml runs is the session's: the plain driver's close
     * lets go of it. Through the pool, A's closed handle must not leave it behind on the idle
     * connection, and B must not hold it.
     */
    @Test
    void anAdvisoryLockTakenThroughQueryToXmlIsNotLeftBehindAsClosedHandle() throws SQLException {
        long key = 27_000_000L + Math.abs(tag.hashCode() % 1_000_000);
        String sql = "SELECT query_to_xml('SELECT pg_advisory_lock(" + key + ")', true, true, '')";
        String held = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = " + key;
        try (Connection plain = TestDatabase.POSTGRES.admin()) {
            run(plain, sql);
            assertThat(num(plain, held)).as("the text takes the lock (test premise)").isEqualTo(1);
        }
        Seen b = pgAfterA(pg(1), a -> run(a, sql), c -> "held on the server: " + outside(held) + ", by B's session: "
                + num(c, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"));
        assertThat(b.value()).as("%s; A's lock must go with A's handle, as with the plain driver's close", b)
                .isEqualTo("held on the server: 0, by B's session: 0");
    }

    /** A count read from an independent session. */
    private static long outside(String query) throws SQLException {
        try (Connection admin = TestDatabase.POSTGRES.admin()) {
            return num(admin, query);
        }
    }

    // ---- the tokenizer reads otherwise than the server ---------------------------------------------

    /**
     * An E'' literal continued across a newline by a second '…' is one E'' literal to the server:
     * the backslash in the continuation escapes. Read with plain strings after it (standard) the
     * continuation swallows the SET; read with backslashes everywhere the later '\' does. The
     * server runs the SET: B's unqualified INSERT must still land in B's own table.
     */
    @ParameterizedTest(name = "preferQueryMode={0}")
    @ValueSource(strings = {"simple", "extendedForPrepared"})
    void aSetSearchPathHiddenByAnEStringContinuationDoesNotCaptureTheNextBorrowersInsert(String mode)
            throws SQLException {
        String schema = "loompool_atk_s_" + tag;
        pgTable();
        pgAdmin("CREATE SCHEMA " + schema);
        pgCleanup.add("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        pgAdmin("CREATE TABLE " + schema + "." + table + " (id int PRIMARY KEY)");
        String sql = "SELECT E''\n'\\'' AS a, '\\' AS b; SET search_path TO " + schema + "; SELECT 1 AS c --'";
        String options = "&preferQueryMode=" + mode;
        try (Connection plain = DriverManager.getConnection(TestDatabase.POSTGRES.url() + options)) {
            run(plain, sql);
            assertThat(str(plain, "SHOW search_path")).as("the server runs the SET (test premise)").isEqualTo(schema);
        }
        LoomPoolDataSource ds = pool(TestDatabase.POSTGRES, 1, options, null);
        Seen b = pgAfterA(ds, a -> run(a, sql), c -> {
            run(c, "INSERT INTO " + table + " VALUES (1)");
            return str(c, "SHOW search_path");
        });
        long mine = pgRows();
        long captured = outside("SELECT count(*) FROM " + schema + "." + table);
        assertThat("B's row in public." + table + ": " + mine + ", in A's " + schema + ": " + captured)
                .as("%s as its search_path; B's autocommitted insert must land in its own table", b)
                .isEqualTo("B's row in public." + table + ": 1, in A's " + schema + ": 0");
    }

    // ---- what the reset cannot undo ---------------------------------------------------------------------

    /**
     * DISCARD ALL cannot unload a library: a connection that loaded passwordcheck must be retired,
     * never reset and reused, or B's CREATE ROLE … PASSWORD 'abc' is refused by A's module. The
     * second text loads it from a DO block, where the pool sees a block, not the LOAD.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"LOAD 'passwordcheck'", "DO $$ BEGIN EXECUTE 'LOAD ''passwordcheck'''; END $$"})
    void aLoadedLibraryDoesNotRefuseTheNextBorrowersPassword(String load) throws SQLException {
        String role = "loompool_atk_r_" + tag;
        pgCleanup.add("DROP ROLE IF EXISTS " + role);
        try (Connection plain = TestDatabase.POSTGRES.admin()) {
            run(plain, load);
            assertThatThrownBy(() -> run(plain, "CREATE ROLE " + role + " PASSWORD 'abc'"))
                    .as("the module refuses the password on A's session (test premise)")
                    .hasMessageContaining("password is too short");
        } // a fresh plain session does not have it: B's CREATE ROLE works there
        Seen b = pgAfterA(pg(1), a -> run(a, load), c -> {
            try {
                run(c, "CREATE ROLE " + role + " PASSWORD 'abc'");
                return "created";
            } catch (SQLException e) {
                return e.getMessage();
            }
        });
        assertThat(b.value()).as("%s: B's CREATE ROLE must not meet A's passwordcheck", b).isEqualTo("created");
    }
}
