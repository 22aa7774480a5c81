package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The session-state pin on MariaDB, the way a user would spell it: user variables in every
 * spelling, the {call} escape to a procedure, and SETs that sql_mode NO_BACKSLASH_ESCAPES or
 * ANSI_QUOTES hides from a lexer that reads the default mode. B on the same connection sees none of
 * A's session.
 */
class MariaDbSessionStatePinTest extends OnRealDatabases {

    /** User variables named with quotes, and SET glued to @: the lexer reads one word "SET@x". */
    @Test
    void mariaUserVariableSpellingsLeak() throws SQLException {
        LoomPoolDataSource ds = maria(1);
        String[] leaks = {
            "SELECT 5 INTO @`atk1`",
            "SELECT @'atk2' := 5",
            "SET@atk3=5",
            "SELECT 5 INTO@atk4",
            "SELECT@atk5:=5",
            "SET@@session.sql_mode='ANSI_QUOTES'",
            "/*!SET @atk6 = 5*/",
            "SET STATEMENT max_statement_time=10 FOR SELECT @atk7 := 5",
            "SELECT @atk8.x := 5",
        };
        List<String> failures = new ArrayList<>();
        for (String sql : leaks) {
            mariaAThenB(ds, a -> run(a, sql), b -> {
                String vars = str(b, "SELECT CONCAT_WS(',', @atk1, @atk2, @atk3, @atk4, @atk5, @atk6, @atk7, @`atk8.x`, "
                        + "IF(@@session.sql_mode LIKE '%ANSI_QUOTES%', 'ANSI_QUOTES', NULL))");
                if (!vars.isEmpty()) {
                    failures.add(sql + " -> B sees " + vars);
                    run(b, "SET @atk1 = NULL, @atk2 = NULL, @atk3 = NULL, @atk4 = NULL, @atk5 = NULL, @atk6 = NULL, "
                            + "@atk7 = NULL, @`atk8.x` = NULL, sql_mode = DEFAULT");
                }
            });
        }
        assertThat(failures).isEmpty();
    }

    /** {call p()} escape: a procedure that sets session state is not pinned/reset. */
    @Test
    void mariaJdbcCallEscapeLeaks() throws SQLException {
        String proc = "loompool_atk_p_" + tag;
        mariaAdmin("CREATE PROCEDURE " + proc + "() BEGIN SET @atk_call = 99; SET SESSION sql_mode = 'ANSI_QUOTES'; END");
        mariaCleanup.add("DROP PROCEDURE IF EXISTS " + proc);
        mariaAThenB(maria(1), a -> {
            try (CallableStatement cs = a.prepareCall("{call " + proc + "()}")) {
                cs.execute();
            }
        }, b -> {
            String fresh;
            try (Connection plain = TestDatabase.MARIADB.admin()) {
                fresh = str(plain, "SELECT @@session.sql_mode");
            }
            assertThat(str(b, "SELECT CONCAT_WS(',', @atk_call, @@session.sql_mode)")).as("B sees A's @atk_call")
                    .isEqualTo(fresh);
        });
    }

    /** sql_mode NO_BACKSLASH_ESCAPES (init SQL or sessionVariables): the lexer still escapes, misses the SET. */
    @Test
    void mariaNoBackslashEscapesHidesASet() throws SQLException {
        LoomPoolDataSource ds = pool(TestDatabase.MARIADB, 1, "&allowMultiQueries=true",
                "SET SESSION sql_mode = CONCAT(@@sql_mode, ',NO_BACKSLASH_ESCAPES')");
        mariaAThenB(ds, a -> {
            run(a, "SELECT 'a\\' ; SET @atk_nbe = 'leaked'; -- '");
            assertThat(str(a, "SELECT @atk_nbe")).isEqualTo("leaked");
        }, b -> assertThat(str(b, "SELECT @atk_nbe")).as("B sees A's variable").isNull());
    }

    /** sql_mode ANSI_QUOTES: "..." is an identifier, no backslash escape; the lexer escapes and misses the SET. */
    @Test
    void mariaAnsiQuotesHidesASet() throws SQLException {
        LoomPoolDataSource ds = pool(TestDatabase.MARIADB, 1, "&allowMultiQueries=true",
                "SET SESSION sql_mode = CONCAT(@@sql_mode, ',ANSI_QUOTES')");
        mariaAThenB(ds, a -> {
            run(a, "SELECT 1 AS \"a\\\" ; SET @atk_aq = 'leaked'; -- \"");
            assertThat(str(a, "SELECT @atk_aq")).isEqualTo("leaked");
        }, b -> assertThat(str(b, "SELECT @atk_aq")).as("B sees A's variable").isNull());
    }
}
