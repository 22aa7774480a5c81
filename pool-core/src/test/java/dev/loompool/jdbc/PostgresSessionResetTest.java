package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * Reset on return on PostgreSQL: what borrower A left on the session (sequence state, the random
 * seed, search path, settings, roles, locks, listened channels, cursors, prepared statements) is gone
 * for borrower B on the same physical connection, and after DISCARD ALL the pool restores what the
 * URL, the driver and connectionInitSql set, so the session equals a fresh one.
 */
class PostgresSessionResetTest extends OnRealDatabases {

    /** Sequence state (currval/lastval) is session state; no pin, no reset: B sees A's value. */
    @Test
    void pgCurrvalOfAnotherBorrowerIsVisible() throws SQLException {
        String seq = "loompool_atk_seq_" + tag;
        pgAdmin("CREATE SEQUENCE " + seq + " START 1000");
        pgCleanup.add("DROP SEQUENCE IF EXISTS " + seq);
        LoomPoolDataSource ds = pg(1);
        pgAThenB(ds, a -> assertThat(num(a, "SELECT nextval('" + seq + "')")).isEqualTo(1000), b -> {
            // a fresh session: ERROR 55000 currval of sequence is not yet defined in this session
            assertThatThrownBy(() -> num(b, "SELECT currval('" + seq + "')"))
                    .as("B must not see A's sequence state").isInstanceOf(SQLException.class);
        });
    }

    /** setseed(): a borrower who set random()'s seed must not know the next one's values (DISCARD ALL keeps it). */
    @Test
    void pgSetseedDoesNotMakeTheNextBorrowersRandomPredictable() throws SQLException {
        String predicted;
        try (Connection admin = TestDatabase.POSTGRES.admin()) {
            run(admin, "SELECT setseed(0.42)");
            predicted = str(admin, "SELECT random()::text");
        }
        LoomPoolDataSource ds = pg(1);
        try (Connection a = ds.getConnection()) {
            run(a, "SELECT setseed(0.42)");
        }
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, "SELECT random()::text")).isNotEqualTo(predicted);
        }
    }

    /** The reset's re-seed calls pg_catalog's setseed, never a function of the application's on the search path. */
    @Test
    void pgTheResetRunsNoSetseedOfTheApplications() throws SQLException {
        String schema = "loompool_atk_s_" + tag;
        pgAdmin("CREATE SCHEMA " + schema);
        pgCleanup.add("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        pgAdmin("CREATE TABLE " + schema + ".hits (n numeric)");
        pgAdmin("CREATE FUNCTION " + schema + ".setseed(numeric) RETURNS void LANGUAGE sql AS "
                + "'INSERT INTO " + schema + ".hits VALUES ($1)'");
        LoomPoolDataSource ds = pool(TestDatabase.POSTGRES, 1, "&currentSchema=" + schema + ",public", null);
        try (Connection a = ds.getConnection()) {
            run(a, "SET work_mem = '8MB'"); // session state: reset on return
        }
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, "SHOW work_mem")).isNotEqualTo("8MB");
        }
        try (Connection admin = TestDatabase.POSTGRES.admin()) {
            assertThat(num(admin, "SELECT count(*) FROM " + schema + ".hits")).isZero();
        }
    }

    /** setSchema is reset with setSchema(getSchema()): "$user", public becomes public. */
    @Test
    void pgSetSchemaResetLeavesANonFreshSearchPath() throws SQLException {
        LoomPoolDataSource ds = pg(1);
        String fresh;
        try (Connection plain = TestDatabase.POSTGRES.admin()) {
            fresh = str(plain, "SHOW search_path");
        }
        pgAThenB(ds, a -> {
            a.setSchema("information_schema");
            assertThat(num(a, "SELECT 1")).isEqualTo(1);
        }, b -> assertThat(str(b, "SHOW search_path")).as("B's search_path is a fresh one").isEqualTo(fresh));
    }

    /** With options=-c search_path=s,public, after A's setSchema B is left with s alone: public tables vanish. */
    @Test
    void pgSetSchemaResetDropsPartOfTheUrlSearchPath() throws SQLException {
        String schema = "loompool_atk_s_" + tag;
        pgAdmin("CREATE SCHEMA " + schema);
        pgCleanup.add("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        pgTable();
        String opts = URLEncoder.encode("-c search_path=" + schema + ",public", StandardCharsets.UTF_8);
        LoomPoolDataSource ds = pool(TestDatabase.POSTGRES, 1, "&options=" + opts, null);
        pgAThenB(ds, a -> {
            assertThat(num(a, "SELECT count(*) FROM " + table)).isZero(); // public table, unqualified
            a.setSchema("public");
            num(a, "SELECT 1");
        }, b -> {
            assertThat(str(b, "SHOW search_path")).as("as a fresh connection from this URL has it").isEqualTo(schema + ",public");
            assertThat(num(b, "SELECT count(*) FROM " + table)).isZero();
        });
    }

    /** After a session reset, the session equals a fresh one made from the same URL and init SQL. */
    @Test
    void pgResetRestoresUrlOptionsApplicationNameAndInitSql() throws SQLException {
        String opts = URLEncoder.encode("-c statement_timeout=12345 -c lock_timeout=2345", StandardCharsets.UTF_8);
        String suffix = "&ApplicationName=atkapp&options=" + opts;
        String init = "SET work_mem = '7MB'";
        String probe = "SELECT current_setting('application_name') || '|' || current_setting('statement_timeout') || '|' "
                + "|| current_setting('lock_timeout') || '|' || current_setting('work_mem') || '|' "
                + "|| current_setting('extra_float_digits') || '|' || current_setting('search_path') || '|' "
                + "|| current_setting('IntervalStyle') || '|' || current_setting('TimeZone') || '|' || current_user";
        LoomPoolDataSource ds = pool(TestDatabase.POSTGRES, 1, suffix, init);
        resetLeavesAFreshSession(ds, TestDatabase.POSTGRES, suffix, init, probe,
                a -> run(a, "SET application_name = 'x'; SET statement_timeout = 1000; SET lock_timeout = 1; "
                        + "SET work_mem = '1MB'; SET extra_float_digits = 0; SET search_path = pg_catalog; "
                        + "SET IntervalStyle = 'sql_standard'; SET TimeZone = 'Asia/Tokyo'; SET ROLE pg_monitor"));
    }

    /** pgjdbc's server-side prepared statements after DISCARD ALL (prepareThreshold=1). */
    @Test
    void pgServerPreparedStatementsSurviveTheReset() throws SQLException {
        LoomPoolDataSource ds = pool(TestDatabase.POSTGRES, 1, "&prepareThreshold=1", null);
        String sql = "SELECT ?::int + 1";
        for (int round = 0; round < 3; round++) {
            try (Connection c = ds.getConnection()) {
                for (int i = 0; i < 3; i++) {
                    try (PreparedStatement ps = c.prepareStatement(sql)) {
                        ps.setInt(1, i);
                        try (ResultSet rs = ps.executeQuery()) {
                            rs.next();
                            assertThat(rs.getInt(1)).isEqualTo(i + 1);
                        }
                    }
                }
                run(c, "SET work_mem = '2MB'"); // session state: DISCARD ALL at close
            }
        }
    }

    /** Advisory lock, LISTEN, WITH HOLD cursor, SET ROLE, set_config(...,true) outside a tx, PREPARE. */
    @Test
    void pgSessionObjectsAreGoneForB() throws SQLException {
        LoomPoolDataSource ds = pg(1);
        long pidA;
        try (Connection a = ds.getConnection()) {
            pidA = pgPid(a);
            run(a, "SELECT pg_advisory_lock(424242)");
            run(a, "LISTEN atk_channel");
            run(a, "BEGIN; DECLARE atk_cur CURSOR WITH HOLD FOR SELECT 1; COMMIT");
            run(a, "PREPARE atk_stmt AS SELECT 1");
            run(a, "SET/**/ROLE pg_monitor");
            run(a, "select set_config('application_name', 'leak', true)");
        }
        try (Connection admin = TestDatabase.POSTGRES.admin()) {
            assertThat(num(admin, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 424242"))
                    .isZero();
        }
        try (Connection b = ds.getConnection()) {
            assertThat(pgPid(b)).isEqualTo(pidA);
            assertThat(num(b, "SELECT count(*) FROM pg_listening_channels()")).isZero();
            assertThat(num(b, "SELECT count(*) FROM pg_cursors WHERE name = 'atk_cur'")).isZero();
            assertThat(num(b, "SELECT count(*) FROM pg_prepared_statements WHERE name = 'atk_stmt'")).isZero();
            assertThat(str(b, "SELECT current_user")).isEqualTo("postgres");
        }
    }
}
