package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The catalog read in the round trip of the first connection's session probe on PostgreSQL
 * (DESIGN.md §4, "Classifying SQL: an allowlist"; issue 39), under driver options that change how a
 * multi-statement text runs, server settings given at connect, a read that fails half-way, a role
 * that sees little, a large catalog. Whatever happens, the pool serves, the first borrower's session
 * is in no transaction and has the settings a plain connection of the same URL has, and the first
 * handle's statements pin at least what they must: a view over a volatile function that sets a
 * setting pins SESSION_STATE, a STABLE function that changes the search path pins, and a STABLE
 * function that reads {@code currval} is refused to a borrower who took no value. MariaDB:
 * {@link MariaDbFirstConnectionClassifiesAsTheCatalogSaysTest}.
 */
@Timeout(180)
class PostgresFirstConnectionClassifiesAsTheCatalogSaysTest extends OnRealDatabases {

    private final String schema = "fcat_" + tag;
    private final String app = "fcat_app_" + tag;

    /** The schema of a test: a view over a volatile function that sets a setting, a sequence and two lying STABLE functions. */
    private void pgObjects() throws SQLException {
        pgCleanup.add("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        pgAdmin("CREATE SCHEMA " + schema);
        pgAdmin("CREATE FUNCTION " + schema + ".setter() RETURNS text LANGUAGE sql VOLATILE AS "
                + "$$ SELECT set_config('application_name', 'fcat_set', false) $$");
        pgAdmin("CREATE VIEW " + schema + ".sv AS SELECT " + schema + ".setter() AS s");
        pgAdmin("CREATE SEQUENCE " + schema + ".sq");
        pgAdmin("CREATE FUNCTION " + schema + ".cur() RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT currval('"
                + schema + ".sq') $$");
        pgAdmin("CREATE FUNCTION " + schema + ".path() RETURNS int LANGUAGE plpgsql VOLATILE AS $$ BEGIN "
                + "PERFORM set_config('search_path', 'pg_catalog', false); RETURN 1; END $$");
    }

    /** A URL option {@code key=value}, the value encoded as pgjdbc decodes it. */
    private static String opt(String key, String value) {
        return key + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    static Stream<Arguments> pgOptions() {
        return Stream.of(
                Arguments.of("none", "", false, false),
                Arguments.of("preferQueryMode=simple", "preferQueryMode=simple", false, false),
                Arguments.of("preferQueryMode=extendedCacheEverything, prepareThreshold=1",
                        "preferQueryMode=extendedCacheEverything&prepareThreshold=1", false, false),
                Arguments.of("preferQueryMode=extendedForPrepared", "preferQueryMode=extendedForPrepared", false, false),
                Arguments.of("autosave=always", "autosave=always", false, false),
                Arguments.of("autosave=always, cleanupSavepoints, the pool's autoCommit false",
                        "autosave=always&cleanupSavepoints=true", true, false),
                Arguments.of("simple, the pool's autoCommit false", "preferQueryMode=simple", true, false),
                Arguments.of("default_transaction_read_only=on", opt("options", "-c default_transaction_read_only=on"),
                        false, true),
                Arguments.of("readOnly=true, readOnlyMode=always", "readOnly=true&readOnlyMode=always", false, true),
                Arguments.of("statement_timeout, lock_timeout, idle_in_transaction_session_timeout",
                        opt("options", "-c statement_timeout=123s -c lock_timeout=7s -c idle_in_transaction_session_timeout=55s"),
                        false, false),
                Arguments.of("search_path={schema}", opt("options", "-c search_path={schema},public"), false, false),
                Arguments.of("default_transaction_isolation=serializable",
                        opt("options", "-c default_transaction_isolation=serializable"), false, false),
                Arguments.of("standard_conforming_strings=off", opt("options", "-c standard_conforming_strings=off"),
                        false, false),
                Arguments.of("simple, standard_conforming_strings=off",
                        "preferQueryMode=simple&" + opt("options", "-c standard_conforming_strings=off"), false, false));
    }

    /** The settings a first borrower must find as a plain connection of the URL has them. */
    private static final String SETTINGS = "SELECT current_setting('statement_timeout') || '|' || current_setting('lock_timeout')"
            + " || '|' || current_setting('idle_in_transaction_session_timeout') || '|' || current_setting('search_path')"
            + " || '|' || current_setting('default_transaction_read_only') || '|' || current_setting('transaction_isolation')"
            + " || '|' || current_setting('standard_conforming_strings') || '|' || current_setting('application_name')";

    @ParameterizedTest(name = "{0}")
    @MethodSource("pgOptions")
    void pgTheFirstConnectionsFoldedReadClassifiesAsTheCatalogSaysWhateverTheOptions(String name, String options,
            boolean autoCommitOff, boolean readOnly) throws Exception {
        pgObjects();
        String url = pgUrl(options.replace("{schema}", schema).replace("%7Bschema%7D", schema) + (options.isEmpty() ? "" : "&")
                + "ApplicationName=" + app);
        String plainSettings;
        try (Connection plain = DriverManager.getConnection(url)) {
            plainSettings = str(plain, SETTINGS);
        }
        LoomPoolDataSource ds = pg(1);
        ds.setJdbcUrl(url);
        if (autoCommitOff) {
            ds.setAutoCommit(false);
        }
        String view = options.contains("search_path") ? "sv" : schema + ".sv";
        try (Connection first = ds.getConnection()) {
            assertThat(pgSessionsNotIdle()).as("the pool's session before the first statement").isEmpty();
            assertThat(str(first, SETTINGS)).as("the first borrower's settings").isEqualTo(plainSettings);
            str(first, "SELECT lower('A')");
            Set<PinReason> pins = first.unwrap(LoomConnection.class).pinReasons();
            if (autoCommitOff) {
                assertThat(pins).doesNotContain(PinReason.SESSION_STATE);
            } else {
                assertThat(pins).as("a stable builtin, the catalog known").isEmpty();
            }
            str(first, "SELECT s FROM " + view);
            assertThat(first.unwrap(LoomConnection.class).pinReasons()).as("a view over a function that sets a setting")
                    .contains(PinReason.SESSION_STATE);
            if (autoCommitOff) {
                first.rollback();
            }
        }
        try (Connection c = ds.getConnection()) {
            num(c, "SELECT " + schema + ".path()");
            assertThat(c.unwrap(LoomConnection.class).pinReasons()).as("a VOLATILE function that sets the search path")
                    .contains(PinReason.SESSION_STATE);
            if (autoCommitOff) {
                c.rollback();
            }
        }
        if (!readOnly) {
            try (Connection a = ds.getConnection()) {
                num(a, "SELECT nextval('" + schema + ".sq')");
                num(a, "SELECT 1");
                if (autoCommitOff) {
                    a.commit();
                }
            }
            try (Connection b = ds.getConnection()) {
                assertThatThrownBy(() -> num(b, "SELECT " + schema + ".cur()"))
                        .as("B reads no value of A's through a STABLE function that reads currval")
                        .isInstanceOf(SQLException.class)
                        .extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("55000");
                if (autoCommitOff) {
                    b.rollback();
                }
            }
        }
        try (Connection c = ds.getConnection()) {
            assertThat(str(c, SETTINGS)).as("a later borrower's settings").isEqualTo(plainSettings);
        }
        assertThat(pgSessionsNotIdle()).as("the pool's idle session").isEmpty();
    }

    /**
     * The folded read fails half-way: another session's open ALTER TABLE under a view holds the lock
     * the view's definition needs, the read gives up after a second, twice (folded, then apart). The
     * connection is handed out in no transaction, and with nothing known every function call pins.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"preferQueryMode=extended", "preferQueryMode=simple", "autosave=always"})
    void pgAReadThatMeetsALockHandsOutASessionInNoTransactionAndPinsEveryCall(String options) throws Exception {
        pgObjects();
        pgAdmin("CREATE TABLE " + schema + ".locked (id int)");
        pgAdmin("CREATE VIEW " + schema + ".locked_v AS SELECT id FROM " + schema + ".locked");
        LoomPoolDataSource ds = pg(1);
        ds.setJdbcUrl(pgUrl(options + "&ApplicationName=" + app));
        try (Connection migration = TestDatabase.POSTGRES.admin(); Statement m = migration.createStatement()) {
            migration.setAutoCommit(false);
            m.execute("ALTER TABLE " + schema + ".locked ADD COLUMN note text");
            try (Connection first = ds.getConnection()) {
                assertThat(pgSessionsNotIdle()).as("the pool's session after the failed read").isEmpty();
                str(first, "SELECT lower('A')");
                assertThat(first.unwrap(LoomConnection.class).pinReasons()).as("nothing known: a call pins")
                        .contains(PinReason.SESSION_STATE);
            }
            try (Connection c = ds.getConnection()) {
                str(c, "SELECT s FROM " + schema + ".sv");
                assertThat(c.unwrap(LoomConnection.class).pinReasons()).contains(PinReason.SESSION_STATE);
            }
            try (Connection c = ds.getConnection()) {
                num(c, "SELECT " + schema + ".path()");
                assertThat(c.unwrap(LoomConnection.class).pinReasons()).contains(PinReason.SESSION_STATE);
            }
        } // the migration's connection closes: its transaction rolls back
        try (Connection c = ds.getConnection()) {
            assertThat(num(c, "SELECT 1")).isEqualTo(1);
        }
        assertThat(pgSessionsNotIdle()).isEmpty();
    }

    /** A role that may log in and nothing more, then one that may read the view: the catalog is everyone's in PostgreSQL. */
    @Test
    void pgARoleWithFewRightsGetsTheCatalogAndPinsAsTheOwnerWould() throws Exception {
        pgObjects();
        String role = "fcat_r_" + tag;
        pgAdmin("CREATE ROLE " + role + " LOGIN");
        pgCleanup.add(0, "DROP ROLE IF EXISTS " + role);
        pgCleanup.add(0, "DROP OWNED BY " + role);
        String url = pgUrl("ApplicationName=" + app).replaceFirst("user=[^&]*", "user=" + role);
        LoomPoolDataSource ds = pg(1);
        ds.setJdbcUrl(url);
        pgAdmin("GRANT USAGE ON SCHEMA " + schema + " TO " + role);
        pgAdmin("GRANT SELECT ON " + schema + ".sv TO " + role);
        try (Connection c = ds.getConnection()) {
            assertThat(pgSessionsNotIdle()).isEmpty();
            str(c, "SELECT s FROM " + schema + ".sv");
            assertThat(c.unwrap(LoomConnection.class).pinReasons()).contains(PinReason.SESSION_STATE);
        }
        try (Connection c = ds.getConnection()) {
            num(c, "SELECT " + schema + ".path()");
            assertThat(c.unwrap(LoomConnection.class).pinReasons()).contains(PinReason.SESSION_STATE);
        }
        assertThat(pgSessionsNotIdle()).isEmpty();
    }

    /** Two thousand views and two thousand functions: all in the one text's results, the last as known as the first. */
    @Test
    void pgAHugeCatalogIsReadWholeByTheFirstConnection() throws Exception {
        pgObjects();
        pgAdmin("DO $do$ BEGIN FOR i IN 1..2000 LOOP"
                + " EXECUTE format('CREATE FUNCTION " + schema + ".f%s() RETURNS int LANGUAGE sql %s AS $f$ SELECT %s $f$',"
                + " i, CASE WHEN i % 2 = 0 THEN 'VOLATILE' ELSE 'STABLE' END, i);"
                + " EXECUTE format('CREATE VIEW " + schema + ".v%s AS SELECT %s.f%s() AS x, %s.setter() AS s', i, '"
                + schema + "', i, '" + schema + "');"
                + " END LOOP; END $do$");
        LoomPoolDataSource ds = pg(1);
        ds.setJdbcUrl(pgUrl("ApplicationName=" + app));
        try (Connection first = ds.getConnection()) {
            num(first, "SELECT " + schema + ".f1999()");
            assertThat(first.unwrap(LoomConnection.class).pinReasons()).as("a STABLE function of the catalog's last").isEmpty();
            num(first, "SELECT x FROM " + schema + ".v2000");
            assertThat(first.unwrap(LoomConnection.class).pinReasons()).contains(PinReason.SESSION_STATE);
        }
        try (Connection c = ds.getConnection()) {
            num(c, "SELECT " + schema + ".f2000()");
            assertThat(c.unwrap(LoomConnection.class).pinReasons()).as("a VOLATILE one").contains(PinReason.SESSION_STATE);
        }
        assertThat(pgSessionsNotIdle()).isEmpty();
    }

    private static String pgUrl(String options) {
        String url = TestDatabase.POSTGRES.url();
        return options.isEmpty() ? url : url + (url.contains("?") ? "&" : "?") + options;
    }

    /** The states of this test's pool sessions that are not idle (idle in transaction, or aborted). */
    private List<String> pgSessionsNotIdle() throws SQLException {
        List<String> states = new ArrayList<>();
        try (Connection admin = TestDatabase.POSTGRES.admin(); Statement st = admin.createStatement();
                ResultSet rs = st.executeQuery("SELECT pid, state FROM pg_stat_activity WHERE application_name = '"
                        + app + "' AND state <> 'idle'")) {
            while (rs.next()) {
                states.add(rs.getLong(1) + ": " + rs.getString(2));
            }
        }
        return states;
    }
}
