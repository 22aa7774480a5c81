package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Hostile probes of session state and the reset (issue 10) on the real PostgreSQL, written by attacking
 * the change the way a user whose data is at stake would. Each test asserts what a user is
 * promised, in the form: borrower A does something; borrower B gets A's physical connection
 * (maxSize 1, checked by backend id) or a fresh one; what does B see, and what did A really commit
 * (checked from an independent admin connection)? The disabled ones are known limits or belong to
 * a later issue, and say which. The transaction, unwrap and reclaim probes are in
 * {@link DriverSideStateAfterTheResetTest}.
 */
class PostgresSessionResetTest extends BorrowerScenarios {

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

    /** A's own lastval() answers with B's value when B ran in between on the shared connection. */
    @Test
    void pgLastvalReturnsAnotherBorrowersValue() throws SQLException {
        String seq = "loompool_atk_seq2_" + tag;
        pgAdmin("CREATE SEQUENCE " + seq + " START 1");
        pgCleanup.add("DROP SEQUENCE IF EXISTS " + seq);
        LoomPoolDataSource ds = pg(2);
        try (Connection a = ds.getConnection(); Connection b = ds.getConnection()) {
            long mine = num(a, "SELECT nextval('" + seq + "')"); // 1
            num(b, "SELECT nextval('" + seq + "')"); // 2, B's
            assertThat(num(a, "SELECT lastval()")).as("plain pgjdbc: A's own lastval").isEqualTo(mine);
        }
    }

    /** PostgreSQL documents UPDATE pg_settings as equivalent to SET. */
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

    /** Settings named like the keywords of SET LOCAL, UPDATE ONLY, and an escaped function name. */
    @Test
    void pgSessionSettingsSpelledLikeTransactionOnesDoNotLeak() throws SQLException {
        LoomPoolDataSource ds = pg(1);
        try (Connection a = ds.getConnection()) {
            run(a, "SET local.tenant = 'a'");
            run(a, "SET \"transaction\".tenant = 'a'");
            run(a, "SELECT U&\"set\\005fconfig\"('app.tenant', 'a', false)");
            run(a, "UPDATE ONLY pg_settings SET setting = 'evil_schema' WHERE name = 'search_path'");
        }
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, "SELECT coalesce(current_setting('local.tenant', true), '') || "
                    + "coalesce(current_setting('transaction.tenant', true), '') || "
                    + "coalesce(current_setting('app.tenant', true), '') || current_setting('search_path')"))
                    .as("B gets a fresh session").isEqualTo("\"$user\", public");
        }
    }

    @Test
    void pgUpdatePgSettingsLeaksSearchPath() throws SQLException {
        LoomPoolDataSource ds = pg(1);
        pgAThenB(ds, a -> {
            run(a, "UPDATE pg_settings SET setting = 'evil_schema' WHERE name = 'search_path'");
            assertThat(str(a, "SHOW search_path")).isEqualTo("evil_schema");
        }, b -> assertThat(str(b, "SHOW search_path")).as("B must get a fresh search_path").isEqualTo("\"$user\", public"));
    }

    /** JDBC escape syntax {call f()}: the leading '{' hides CALL from the classifier. */
    @Test
    void pgJdbcCallEscapeOfAStateChangingFunctionLeaks() throws SQLException {
        String fn = "loompool_atk_fn_" + tag;
        pgAdmin("CREATE FUNCTION " + fn + "() RETURNS int LANGUAGE plpgsql AS $$ BEGIN "
                + "PERFORM set_config('search_path', 'evil_schema', false); "
                + "PERFORM pg_advisory_lock(777" + "); RETURN 1; END $$");
        pgCleanup.add("DROP FUNCTION IF EXISTS " + fn + "()");
        LoomPoolDataSource ds = pg(1);
        pgAThenB(ds, a -> {
            try (CallableStatement cs = a.prepareCall("{? = call " + fn + "()}")) {
                cs.registerOutParameter(1, java.sql.Types.INTEGER);
                cs.execute();
            }
        }, b -> {
            String sp = str(b, "SHOW search_path");
            long locks = num(b, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()");
            assertThat(sp + " / advisory locks held: " + locks).as("B inherits A's session")
                    .isEqualTo("\"$user\", public / advisory locks held: 0");
        });
    }

    /** Any user function called from a SELECT can change the session (plain SELECT f()). */
    @Test
    @Disabled("known limit (README): state a user function leaves on the session is not seen; pin explicitly")
    void pgSelectOfAStateChangingFunctionLeaks() throws SQLException {
        String fn = "loompool_atk_fn2_" + tag;
        pgAdmin("CREATE FUNCTION " + fn + "() RETURNS int LANGUAGE sql AS "
                + "$$ SELECT length(set_config('statement_timeout', '4321', false)) $$");
        pgCleanup.add("DROP FUNCTION IF EXISTS " + fn + "()");
        LoomPoolDataSource ds = pg(1);
        pgAThenB(ds, a -> {
            num(a, "SELECT " + fn + "()");
        }, b -> assertThat(str(b, "SHOW statement_timeout")).as("B inherits A's statement_timeout").isEqualTo("0"));
    }

    /** EXPLAIN ANALYZE executes its statement: CREATE TEMP TABLE AS behind EXPLAIN is not seen. */
    @Test
    void pgExplainAnalyzeCreateTempTableLeaks() throws SQLException {
        LoomPoolDataSource ds = pg(1);
        pgAThenB(ds, a -> run(a, "EXPLAIN ANALYZE CREATE TEMP TABLE atk_leak AS SELECT 42 AS secret"), b -> {
            assertThatThrownBy(() -> num(b, "SELECT secret FROM atk_leak"))
                    .as("B must not see A's temp table").isInstanceOf(SQLException.class);
        });
    }

    /**
     * With standard_conforming_strings=off (a URL option, legacy apps), backslash escapes in plain
     * strings: the lexer ends the string one quote too early and misses the SET the server runs.
     */
    @Test
    void pgStandardConformingStringsOffHidesASet() throws SQLException {
        String opts = URLEncoder.encode("-c standard_conforming_strings=off", StandardCharsets.UTF_8);
        LoomPoolDataSource ds = pool(TestDatabase.POSTGRES, 1, "&options=" + opts, null);
        pgAThenB(ds, a -> {
            assertThat(str(a, "SHOW standard_conforming_strings")).isEqualTo("off");
            // server: 'a\' , '   then   SET search_path TO evil_schema   then a -- comment
            run(a, "SELECT 'a\\' , ' ; SET search_path TO evil_schema; --'");
            assertThat(str(a, "SHOW search_path")).isEqualTo("evil_schema");
        }, b -> assertThat(str(b, "SHOW search_path")).isEqualTo("\"$user\", public"));
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

    /**
     * The connection dies inside A's transaction; A then calls setAutoCommit(true), which by JDBC
     * commits the open transaction. Plain pgjdbc throws (the commit did not happen); the pool returns
     * normally, so A believes row 1 was committed. It was lost.
     */
    @Test
    void pgSetAutoCommitTrueAfterTheConnectionDiedReportsASuccessfulCommit() throws Exception {
        pgTable();
        // reference: the plain driver
        try (Connection plain = TestDatabase.POSTGRES.admin()) {
            plain.setAutoCommit(false);
            run(plain, "INSERT INTO " + table + " VALUES (1)");
            pgAdmin("SELECT pg_terminate_backend(" + pgPid(plain) + ")");
            assertThatThrownBy(() -> run(plain, "INSERT INTO " + table + " VALUES (2)")).isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> plain.setAutoCommit(true)).as("plain pgjdbc").isInstanceOf(SQLException.class);
        }
        setAutoCommitTrueAfterTheConnectionDiedThrows(TestDatabase.POSTGRES, pg(2));
    }

    /** Savepoints (JDBC and SQL) and autocommit toggles: exactly the kept work is committed; B is clean. */
    @Test
    void pgSavepointsWithAutoCommitTogglesCommitExactlyWhatWasKept() throws SQLException {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        long pidA;
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            pidA = pgPid(a);
            run(a, "INSERT INTO " + table + " VALUES (1)");
            Savepoint sp = a.setSavepoint("s1");
            run(a, "INSERT INTO " + table + " VALUES (2)");
            a.rollback(sp);
            Savepoint sp2 = a.setSavepoint();
            run(a, "INSERT INTO " + table + " VALUES (3)");
            a.releaseSavepoint(sp2);
            assertThat(pgRows()).isZero();
            a.setAutoCommit(true); // commits 1 and 3
            assertThat(pgRows()).isEqualTo(2);
            run(a, "BEGIN");
            run(a, "INSERT INTO " + table + " VALUES (4)");
            run(a, "SAVEPOINT x");
            run(a, "INSERT INTO " + table + " VALUES (5)");
            run(a, "ROLLBACK TO SAVEPOINT x");
            run(a, "RELEASE SAVEPOINT x");
            assertThat(a.unwrap(LoomConnection.class).pinReasons()).contains(PinReason.TRANSACTION);
        } // closed with the SQL transaction open: 4 rolled back
        try (Connection b = ds.getConnection()) {
            assertThat(pgPid(b)).isEqualTo(pidA);
            assertThat(str(b, "SELECT now() = statement_timestamp()")).as("B is not inside A's transaction").isEqualTo("f");
            run(b, "INSERT INTO " + table + " VALUES (6)");
        }
        assertThat(pgIds()).isEqualTo("1,3,6");
    }

    /** A Statement batch with BEGIN/COMMIT/BEGIN inside, closed without commit: only the committed part stays. */
    @Test
    void pgBatchWithTransactionControlInside() throws SQLException {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        pgAThenB(ds, a -> {
            try (Statement st = a.createStatement()) {
                st.addBatch("BEGIN");
                st.addBatch("INSERT INTO " + table + " VALUES (1)");
                st.addBatch("COMMIT");
                st.addBatch("BEGIN");
                st.addBatch("INSERT INTO " + table + " VALUES (2)");
                st.executeBatch();
            }
            run(a, "INSERT INTO " + table + " VALUES (3)"); // inside A's open SQL transaction
        }, b -> run(b, "INSERT INTO " + table + " VALUES (10)"));
        assertThat(pgIds()).isEqualTo("1,10");
    }

    /** Failed (aborted) transaction, then close: B gets a clean connection, nothing of A's is committed. */
    @Test
    void pgFailedTransactionThenCloseIsCleanForB() throws SQLException {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        pgAThenB(ds, a -> {
            run(a, "BEGIN");
            run(a, "INSERT INTO " + table + " VALUES (1)");
            assertThatThrownBy(() -> run(a, "SELECT 1/0")).isInstanceOf(SQLException.class);
        }, b -> run(b, "INSERT INTO " + table + " VALUES (2)"));
        assertThat(pgRows()).isEqualTo(1);
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
