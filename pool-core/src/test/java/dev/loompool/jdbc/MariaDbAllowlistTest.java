package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The MariaDB classes of issue 27, the acceptance tests of the allowlist classifier, through
 * both Connector/Js: borrower A runs SQL the denylist took for neutral and closes its handle;
 * borrower B gets the pool's only connection (maxSize 1). What B sees, and what B really commits
 * (seen from an independent session), must be what a fresh plain driver connection gives. Each
 * text is sent as one statement (Statement.execute), as the compound statements need.
 */
class MariaDbAllowlistTest extends OnRealDatabases {

    /**
     * Runs {@code sql}; a block that ends with SIGNAL SQLSTATE '45000' (a top-level LOOP takes no
     * label to LEAVE by) fails on purpose, after doing what it did.
     */
    private static void runBlock(Connection c, String sql) throws SQLException {
        try {
            run(c, sql);
        } catch (SQLException e) {
            if (!"45000".equals(e.getSQLState())) { // 45000: the user-defined SIGNAL
                throw e;
            }
        }
    }

    /**
     * A's text assigns {@code variable} on the plain driver; through the pool, B on A's connection
     * must not see it (a fresh session's user variables are NULL).
     */
    private void assertVariableNotLeft(Connector connector, String options, String variable, String sql)
            throws SQLException {
        try (Connection plain = DriverManager.getConnection(connector.url(options))) {
            runBlock(plain, sql);
            assertThat(str(plain, "SELECT " + variable)).as("the text sets %s on A's session (test premise)", variable)
                    .isNotNull();
        }
        Seen b = mariaAfterA(maria(connector, 1, options), a -> runBlock(a, sql), c -> str(c, "SELECT " + variable));
        assertThat(b.value()).as("%s as %s after A ran %s", b, variable, sql).isNull();
    }

    // ---- compound statements ----------------------------------------------------------------------------

    static Stream<Arguments> blocks() {
        return each(
                "IF 1 THEN SET @atk_block = 'A''s'; END IF",
                "CASE WHEN 1 THEN SET @atk_block = 'A''s'; END CASE",
                "WHILE @atk_block IS NULL DO SET @atk_block = 'A''s'; END WHILE",
                "REPEAT SET @atk_block = 'A''s'; UNTIL 1 END REPEAT",
                "FOR i IN 1..1 DO SET @atk_block = 'A''s'; END FOR",
                "LOOP SET @atk_block = 'A''s'; SIGNAL SQLSTATE '45000'; END LOOP",
                "BEGIN NOT ATOMIC SET @atk_block = 'A''s'; END");
    }

    /** MariaDB runs a compound statement as one top-level statement: the SET inside it is A's session's. */
    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("blocks")
    void aUserVariableSetInsideACompoundStatementDoesNotReachTheNextBorrower(Connector connector, String sql)
            throws SQLException {
        assertVariableNotLeft(connector, null, "@atk_block", sql);
    }

    /**
     * SET NAMES latin1 inside an IF: B's driver still sends UTF-8, which a latin1 session stores
     * as 'cafÃ©'. B's 'café' must be committed as 'café', as an independent session reads it.
     * MariaDB Connector/J reads the character set the server reports after each statement and
     * closes a connection that left UTF-8, on the plain driver too: A's statement fails, and the
     * pool must destroy that connection, not lend it.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Connector.class)
    void setNamesInsideAnIfDoesNotGarbleTheNextBorrowersText(Connector connector) throws SQLException {
        mariaAdmin("CREATE TABLE " + table + " (id int PRIMARY KEY, s varchar(20)) CHARACTER SET utf8mb4");
        mariaCleanup.add("DROP TABLE IF EXISTS " + table);
        String sql = "IF 1 THEN SET NAMES latin1; END IF";
        Use setNames = c -> {
            try {
                run(c, sql);
                assertThat(str(c, "SELECT @@character_set_client")).as("test premise").isEqualTo("latin1");
            } catch (SQLNonTransientConnectionException closedByTheDriver) {
                assertThat(connector).as("only MariaDB Connector/J refuses a latin1 session")
                        .isEqualTo(Connector.MARIADB_CONNECTOR_J);
            }
        };
        try (Connection plain = DriverManager.getConnection(connector.url(null))) {
            setNames.on(plain);
        }
        Seen b = mariaAfterA(maria(connector, 1, null), setNames, c -> {
            run(c, "INSERT INTO " + table + " VALUES (1, 'café')");
            return str(c, "SELECT @@character_set_client");
        });
        String committed;
        try (Connection admin = TestDatabase.MARIADB.admin()) {
            committed = str(admin, "SELECT s FROM " + table + " WHERE id = 1");
        }
        assertThat(committed).as("%s as its character_set_client; B's 'café' as committed", b).isEqualTo("café");
    }

    /**
     * A temporary table made inside an IF shadows B's real table of the same name: B's
     * autocommitted insert must land in the real table (1 row), not in A's temporary one.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Connector.class)
    void aTemporaryTableMadeInsideAnIfDoesNotCaptureTheNextBorrowersInsert(Connector connector) throws SQLException {
        mariaTable();
        String sql = "IF 1 THEN CREATE TEMPORARY TABLE " + table + " (id int AUTO_INCREMENT PRIMARY KEY, v int); END IF";
        Seen b = mariaAfterA(maria(connector, 1, null), a -> run(a, sql), c -> {
            run(c, "INSERT INTO " + table + " (v) VALUES (1)");
            return "B's insert returned";
        });
        assertThat(mariaRows()).as("%s; rows in the real table, seen from an independent session", b).isEqualTo(1);
    }

    // ---- user variables assigned without := or INTO ----------------------------------------------------

    static Stream<Arguments> diagnostics() {
        return each(
                "GET DIAGNOSTICS CONDITION 1 @atk_diag = MESSAGE_TEXT",
                "IF 1 THEN GET DIAGNOSTICS CONDITION 1 @atk_diag = MESSAGE_TEXT; END IF");
    }

    /**
     * GET DIAGNOSTICS copies A's error text, with A's data in it, into a user variable: B must
     * not read it. A reads its own, as on the plain driver (the pool must not clear A's
     * diagnostics area between A's statements either).
     */
    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("diagnostics")
    void theErrorTextGetDiagnosticsCopiedDoesNotReachTheNextBorrower(Connector connector, String sql)
            throws SQLException {
        mariaTable();
        mariaAdmin("INSERT INTO " + table + " (id, v) VALUES (4711, 1)");
        Use failThenCopy = c -> {
            try {
                run(c, "INSERT INTO " + table + " (id, v) VALUES (4711, 2)");
            } catch (SQLException duplicate) {
                // ER_DUP_ENTRY, "Duplicate entry '4711' for key 'PRIMARY'": A's error, with A's data
            }
            run(c, sql);
            assertThat(str(c, "SELECT @atk_diag")).as("A reads its own error text").contains("4711");
        };
        try (Connection plain = DriverManager.getConnection(connector.url(null))) {
            failThenCopy.on(plain); // the premise, on the plain driver
        }
        Seen b = mariaAfterA(maria(connector, 1, null), failThenCopy, c -> str(c, "SELECT @atk_diag"));
        assertThat(b.value()).as("%s as @atk_diag", b).isNull();
    }

    /**
     * LOAD DATA … (id, @v) SET … assigns @v row by row: B must not read A's last row's value.
     * LOCAL (the client sends the file) needs the server's local_infile, on here, and each
     * driver's option.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Connector.class)
    void aUserVariableAssignedByLoadDataDoesNotReachTheNextBorrower(Connector connector)
            throws SQLException, IOException {
        mariaTable();
        Path file = Files.createTempFile("loompool-atk-", ".tsv");
        try {
            Files.writeString(file, "1\t42\n", StandardCharsets.UTF_8);
            String options = connector == Connector.MARIADB_CONNECTOR_J ? "allowLocalInfile=true" : "allowLoadLocalInfile=true";
            String sql = "LOAD DATA LOCAL INFILE '" + file.toAbsolutePath() + "' INTO TABLE " + table
                    + " (id, @atk_load) SET v = @atk_load";
            assertVariableNotLeft(connector, options, "@atk_load", sql);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    // ---- the tokenizer reads otherwise than the server ---------------------------------------------

    static Stream<Arguments> hidden() {
        return each(
                // a versioned comment for a version above the server's is a comment to it: the quote
                // inside is nothing, but to a tokenizer that reads the comment as SQL it opens a string
                "/*!999999 ' */ SELECT 'A''s' INTO @atk_hidden",
                "/*M!999999 ' */ SELECT 'A''s' INTO @atk_hidden",
                // MariaDB also skips /*!50700 … /*!99999: MySQL 5.7 and later, below its own version
                // number (10.11 is 101100) but not MariaDB's (/*M!50700 runs)
                "/*!50700 ' */ SELECT 'A''s' INTO @atk_hidden",
                // the server ends # and -- comments at \n only: a lone \r does not end them, so the
                // quote after it is comment, not the start of a string that hides INTO
                "SELECT 'A''s' #\r'\nINTO @atk_hidden #'",
                "SELECT 'A''s' -- \r'\nINTO @atk_hidden -- '",
                // -- followed by any control character starts a comment on the server
                "SELECT 'A''s' --\u0001'\nINTO @atk_hidden --\u0001'",
                // and -- followed by a Unicode space is no comment on the server (it reads bytes,
                // and the first byte of U+3000 is no space): the rest of the line is SQL it runs
                "SELECT 2 --\u3000 FROM (SELECT 1 AS \u3000) t INTO @atk_hidden");
    }

    /** Texts that the server reads otherwise than the pool's tokenizer, all assigning @atk_hidden. */
    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("hidden")
    void aUserVariableHiddenFromTheTokenizerDoesNotReachTheNextBorrower(Connector connector, String sql)
            throws SQLException {
        assertVariableNotLeft(connector, null, "@atk_hidden", sql);
    }

    // ---- a hidden SET autocommit=0 --------------------------------------------------------------------

    static Stream<Arguments> autocommitOff() {
        return each("IF 1 THEN SET autocommit = 0; END IF", "/*!999999 ' */ SET autocommit = 0");
    }

    /**
     * Autocommit turned off where the classifier does not look: B's two autocommitted inserts
     * must both be committed (an independent session sees 2 rows), not rolled back with the
     * transaction the server opened for them. MariaDB Connector/J's status flags show autocommit
     * off; MySQL Connector/J's are read only for the transaction flag.
     */
    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("autocommitOff")
    void autocommitTurnedOffWhereTheClassifierDoesNotLookDoesNotRollBackTheNextBorrowersWrites(Connector connector,
            String sql) throws SQLException {
        mariaTable();
        try (Connection plain = DriverManager.getConnection(connector.url(null))) {
            run(plain, sql);
            assertThat(num(plain, "SELECT @@autocommit")).as("test premise").isZero();
        }
        Seen b = mariaAfterA(maria(connector, 1, null), a -> run(a, sql), c -> {
            run(c, "INSERT INTO " + table + " (v) VALUES (1)");
            run(c, "INSERT INTO " + table + " (v) VALUES (2)");
            return "@@autocommit " + str(c, "SELECT @@autocommit");
        });
        assertThat(mariaRows()).as("%s; of B's 2 autocommitted inserts, committed", b).isEqualTo(2);
    }
}
