package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The allowlist classifier reads a text as the real MariaDB runs it (DESIGN.md §4, "Classifying
 * SQL: an allowlist"; issue 27), through both Connector/Js: versioned comments, views, stored
 * functions named like builtins, ORACLE mode, batches the driver joins, triggers. Borrower A runs a
 * text the allowlist proves neutral and closes; borrower B gets the pool's only connection (maxSize
 * 1). What B sees, and what an independent session sees, must be what a fresh plain driver
 * connection per borrower gives.
 */
class MariaDbAllowlistReadsAsTheServerTest extends OnRealDatabases {

    /**
     * A's {@code use} assigns {@code variable} on the plain driver (the premise); through a pool of
     * {@code ds}, B on A's connection must not see it (a fresh session's user variables are NULL).
     */
    private void assertVariableNotLeft(String plainUrl, LoomPoolDataSource ds, String variable, Use use)
            throws SQLException {
        try (Connection plain = DriverManager.getConnection(plainUrl)) {
            use.on(plain);
            assertThat(str(plain, "SELECT " + variable)).as("A's text sets %s on A's session (test premise)", variable)
                    .isNotNull();
        }
        Seen b = mariaAfterA(ds, use, c -> str(c, "SELECT " + variable));
        assertThat(b.value()).as("%s as %s", b, variable).isNull();
    }

    /** Whether an independent session can take the named lock now: A's handle is closed, so A holds nothing. */
    private boolean lockFree(String lock) throws SQLException {
        try (Connection admin = TestDatabase.MARIADB.admin()) {
            return num(admin, "SELECT GET_LOCK('" + lock + "', 0)") == 1;
        }
    }

    // ---- versioned comments for different versions in one text -------------------------------------

    /**
     * The tokenizer reads a text with versioned comments twice, all of them run or all skipped.
     * The server decides per comment: here the first and last are skipped (/*!99999 is MySQL's
     * range, /*M!999999 above 10.11) and the middle one runs (/*!10000, /*M!100000). Run all, the
     * quotes of the outer two swallow the middle; skip all, it is gone; the server runs it.
     */
    static Stream<Arguments> mixedVersions() {
        return each(
                "SELECT /*!99999 ' */ /*!10000 @atk_mixed := 'A''s', */ /*!99999 ' */ 2",
                "SELECT /*M!999999 ' */ /*M!100000 @atk_mixed := 'A''s', */ /*M!999999 ' */ 2",
                "SELECT 'A''s' /*!99999 ' */ /*!10000 INTO @atk_mixed */ /*!99999 ' */",
                "SELECT 'A''s' /*!99999 ' */ /*!100000 INTO @atk_mixed */ /*!99999 ' */");
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("mixedVersions")
    void aUserVariableBetweenVersionedCommentsOfDifferentVersionsDoesNotReachTheNextBorrower(Connector connector,
            String sql) throws SQLException {
        assertVariableNotLeft(connector.url(null), maria(connector, 1, null), "@atk_mixed", c -> run(c, sql));
    }

    /** The same shape hides GET_LOCK: A's named lock must not outlive A's closed handle. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Connector.class)
    void aNamedLockBetweenVersionedCommentsOfDifferentVersionsIsNotHeldAfterTheHandleCloses(Connector connector)
            throws SQLException {
        String lock = "loompool_atk_" + tag;
        String sql = "SELECT /*!50700 ' */ /*!50699 GET_LOCK('" + lock + "', 0), */ /*!50700 ' */ 2";
        Seen b = mariaAfterA(maria(connector, 1, null), a -> run(a, sql), c -> "B borrowed");
        assertThat(lockFree(lock)).as("%s; an independent session takes %s after A closed", b, lock).isTrue();
    }

    // ---- MariaDB views run what their definition calls ----------------------------------------------

    /**
     * A view whose definition calls GET_LOCK takes the lock for the session that reads it; the
     * allowlist reads a MariaDB view as a plain table name (PostgreSQL's views are read by their
     * definition since f6092a4). A's SELECT from it must not leave the lock held behind A's handle.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Connector.class)
    void aViewThatTakesANamedLockDoesNotKeepItPastTheHandle(Connector connector) throws SQLException {
        String lock = "loompool_atk_" + tag;
        mariaAdmin("CREATE VIEW " + table + "_v AS SELECT GET_LOCK('" + lock + "', 0) AS g");
        mariaCleanup.add("DROP VIEW IF EXISTS " + table + "_v");
        Seen b = mariaAfterA(maria(connector, 1, null), a -> str(a, "SELECT g FROM " + table + "_v"), c -> "B borrowed");
        assertThat(lockFree(lock)).as("%s; an independent session takes %s after A closed", b, lock).isTrue();
    }

    /** A view over a stored function that assigns a user variable: B must not read A's value. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Connector.class)
    void aViewOverAStoredFunctionDoesNotLeaveItsUserVariableForTheNextBorrower(Connector connector)
            throws SQLException {
        mariaAdmin("CREATE FUNCTION " + table + "_f() RETURNS int NOT DETERMINISTIC BEGIN SET @atk_view = 'A''s'; RETURN 1; END");
        mariaCleanup.add("DROP FUNCTION IF EXISTS " + table + "_f");
        mariaAdmin("CREATE VIEW " + table + "_v AS SELECT " + table + "_f() AS g");
        mariaCleanup.add(0, "DROP VIEW IF EXISTS " + table + "_v");
        assertVariableNotLeft(connector.url(null), maria(connector, 1, null), "@atk_view",
                c -> str(c, "SELECT g FROM " + table + "_v"));
    }

    // ---- names on the builtin list that MariaDB 10.11 does not have ----------------------------------

    /**
     * MySQL 8's ANY_VALUE, BIN_TO_UUID, REGEXP_LIKE, and JSON_TABLE outside FROM are no builtins on
     * MariaDB 10.11: the unqualified name calls the default database's stored function of that name
     * (a common polyfill), which the allowlist takes for the builtin.
     */
    static Stream<Arguments> notBuiltinHere() {
        return each("any_value", "bin_to_uuid", "regexp_like", "json_table", "grouping", "is_uuid");
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("notBuiltinHere")
    void aStoredFunctionNamedLikeAnotherServersBuiltinDoesNotLeaveItsUserVariable(Connector connector, String name)
            throws SQLException {
        String db = "loompool_atk_" + tag;
        mariaAdmin("CREATE DATABASE " + db);
        mariaCleanup.add("DROP DATABASE IF EXISTS " + db);
        mariaAdmin("CREATE FUNCTION " + db + "." + name + "(x int) RETURNS int NOT DETERMINISTIC"
                + " BEGIN SET @atk_shadow = 'A''s'; RETURN x; END");
        String url = connector.url(null).replaceFirst("/test(?=\\?|$)", "/" + db);
        LoomPoolDataSource ds = maria(connector, 1, null);
        ds.setJdbcUrl(url);
        assertVariableNotLeft(url, ds, "@atk_shadow", c -> str(c, "SELECT " + name + "(1)"));
    }

    // ---- ORACLE mode's sequence pseudo-columns ------------------------------------------------------

    /**
     * sql_mode=ORACLE: {@code s.nextval} and {@code s.currval} are NEXT VALUE FOR and PREVIOUS VALUE
     * FOR without the words the value rule looks for. B's {@code s.currval} on a fresh session is
     * NULL; it must not be A's value (refusing it, as PREVIOUS VALUE FOR is, is fine too).
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Connector.class)
    void anOracleModeSequenceValueDoesNotReachTheNextBorrower(Connector connector) throws SQLException {
        String seq = table + "_s";
        mariaAdmin("CREATE SEQUENCE " + seq + " START WITH 4711");
        mariaCleanup.add("DROP SEQUENCE IF EXISTS " + seq);
        String options = "sessionVariables=sql_mode=ORACLE";
        Seen b = mariaAfterA(maria(connector, 1, options), a -> str(a, "SELECT " + seq + ".nextval FROM dual"), c -> {
            try {
                return str(c, "SELECT " + seq + ".currval FROM dual");
            } catch (SQLException refused) {
                return null;
            }
        });
        assertThat(b.value()).as("%s as %s.currval", b, seq).isNull();
    }

    // ---- a driver joins batch statements into one text --------------------------------------------

    /**
     * MySQL Connector/J with rewriteBatchedStatements sends a Statement batch of more than four as
     * one multi-statement text, joined by ';' (it turns multi-statements on for it). Each batch
     * text alone is neutral (an unclosed comment; a string), but joined the comment swallows the
     * quote, and the SET runs. MariaDB Connector/J sends each text on its own.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Connector.class)
    void batchStatementsJoinedByTheDriverDoNotLeaveAUserVariable(Connector connector) throws SQLException {
        mariaTable();
        String options = "rewriteBatchedStatements=true"; // a common option for speed; no allowMultiQueries needed
        Use batch = c -> {
            try (Statement st = c.createStatement()) {
                for (int i = 1; i <= 3; i++) {
                    st.addBatch("INSERT INTO " + table + " (v) VALUES (" + i + ")");
                }
                st.addBatch("INSERT INTO " + table + " (v) VALUES (4) /*");
                st.addBatch("INSERT INTO " + table + " (v) VALUES (' */ ; SET @atk_batch = 4711 -- ')");
                st.executeBatch();
            } catch (SQLException e) {
                // the driver may report the joined text's odd counts; what ran, ran
            }
        };
        try (Connection plain = DriverManager.getConnection(connector.url(options))) {
            batch.on(plain);
            if (str(plain, "SELECT @atk_batch") == null) {
                assertThat(connector).as("only MySQL Connector/J joins a Statement batch (premise)")
                        .isEqualTo(Connector.MARIADB_CONNECTOR_J);
            }
        }
        Seen b = mariaAfterA(maria(connector, 1, options), batch, c -> str(c, "SELECT @atk_batch"));
        assertThat(b.value()).as("%s as @atk_batch", b).isNull();
    }

    // ---- triggers -----------------------------------------------------------------------------------

    /**
     * A trigger runs with the DML that fires it, in the session that runs it: one that assigns a
     * user variable leaves it behind A's plain INSERT (the README's known limits name triggers for
     * PostgreSQL's catalog; MariaDB's information_schema.TRIGGERS says which tables have one).
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Connector.class)
    void aTriggersUserVariableDoesNotReachTheNextBorrower(Connector connector) throws SQLException {
        mariaTable();
        mariaAdmin("CREATE TRIGGER " + table + "_t BEFORE INSERT ON " + table
                + " FOR EACH ROW SET @atk_trigger = NEW.v");
        assertVariableNotLeft(connector.url(null), maria(connector, 1, null), "@atk_trigger",
                c -> run(c, "INSERT INTO " + table + " (v) VALUES (4711)"));
    }
}
