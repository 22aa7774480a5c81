package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * The session-state pin on PostgreSQL, the way a user would spell it: SET and transaction control
 * hidden by comments, quotes, dollar quotes, escapes and odd identifiers, settings named like
 * keywords, UPDATE pg_settings, the {call} escape, EXPLAIN ANALYZE, temp tables by other names, and
 * standard_conforming_strings=off. Whatever A changed, B on the same connection gets a fresh session
 * and none of A's uncommitted work.
 */
class PostgresSessionStatePinTest extends OnRealDatabases {

    /** Exotic spellings of transaction control and SET. */
    @Test
    void pgExoticSpellings() throws SQLException {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        String[] leaks = {
            "set\tsearch_path\tto\tevil_schema",
            "SET/**/search_path=evil_schema",
            "/* c */ SET /* /* nested */ */ search_path = evil_schema",
            "ROLLBACK;SET search_path = evil_schema",
            "SELECT 1;SET search_path = evil_schema",
            "SELECT $x$;$x$; SET search_path = evil_schema",
            "SELECT E'\\';' ; SET search_path = evil_schema",
            "SELECT \"a\"\"b\" FROM (SELECT 1 AS \"a\"\"b\") s; SET search_path = evil_schema",
            "SELECT U&'\\0041' ; SET search_path = evil_schema",
            "WITH x AS (SELECT 1) SELECT pg_catalog.\"set_config\"('search_path', 'evil_schema', false)",
            // PostgreSQL identifiers take any non-ASCII character; the lexer ends the word at a
            // non-letter one and reads $a$ as the start of a dollar quote that swallows the SET
            "SELECT 1 AS x\u20ac$a$; SET search_path = evil_schema; --$a$",
        };
        List<String> failures = new ArrayList<>();
        for (String sql : leaks) {
            pgAThenB(ds, a -> run(a, sql), b -> {
                String sp = str(b, "SHOW search_path");
                if (!sp.equals("\"$user\", public")) {
                    failures.add(sql + " -> " + sp);
                    run(b, "RESET search_path");
                }
            });
        }
        String[] txLeaks = {
            "commit;begin",
            "BEGIN/**/",
            "start/**/transaction",
            "ROLLBACK; BEGIN ISOLATION LEVEL SERIALIZABLE",
            "END; BEGIN",
            "SELECT 'x;'; BEGIN",
        };
        for (String sql : txLeaks) {
            pgAThenB(ds, a -> {
                run(a, sql);
                run(a, "INSERT INTO " + table + " VALUES (1)");
            }, b -> {
                if (!str(b, "SELECT now() = statement_timestamp()").equals("f")) {
                    failures.add(sql + " -> B inside a transaction");
                }
            });
            if (pgRows() != 0) {
                failures.add(sql + " -> A's uncommitted insert committed");
                pgAdmin("DELETE FROM " + table);
            }
        }
        assertThat(failures).isEmpty();
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

    /** PostgreSQL documents UPDATE pg_settings as equivalent to SET. */
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

    /** CREATE TABLE pg_temp.x and a second way to name the temp schema. */
    @Test
    void pgTempTableSpellings() throws SQLException {
        LoomPoolDataSource ds = pg(1);
        List<String> failures = new ArrayList<>();
        String[] sqls = {
            "CREATE TABLE pg_temp.atk_t1 (x int)",
            "CREATE TABLE \"pg_temp\".atk_t1 (x int)",
            "SELECT 1 AS x INTO TEMPORARY TABLE atk_t1",
        };
        for (String sql : sqls) {
            pgAThenB(ds, a -> run(a, sql), b -> {
                if (num(b, "SELECT count(*) FROM pg_class WHERE relname = 'atk_t1' AND relpersistence = 't' "
                        + "AND pg_table_is_visible(oid)") != 0) {
                    failures.add(sql);
                    run(b, "DROP TABLE pg_temp.atk_t1");
                }
            });
        }
        assertThat(failures).isEmpty();
    }
}
