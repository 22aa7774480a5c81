package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.internal.sql.SqlDialect;
import dev.loompool.jdbc.internal.sql.SqlMask;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The mask of a pin statement on its own (secrets masking, DESIGN.md §4): {@code SqlMask} must read
 * every literal as each server reads it, so that a secret the server takes as a value never comes
 * out of the mask. Through the pool's outputs: {@link PinStatementShowsNoSecretTest}.
 */
class SqlMaskHidesEveryLiteralTest {

    private static final String SECRET = "S3cretTok9";

    /**
     * Inputs that must come out without the secret. Columns: dialect, SQL ({@code \n} for a line
     * break), the secret. The comment after each names the server reading that makes it a literal.
     */
    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '~', textBlock = """
            POSTGRES | SET app.token TO 'S3cretTok9'                                   | S3cretTok9
            POSTGRES | SET app.token = E'it\\'s S3cretTok9'                            | S3cretTok9
            POSTGRES | SET app.token = 'it\\' S3cretTok9 '                              | S3cretTok9
            POSTGRES | SET app.token = $tag$S3cretTok9$tag$                            | S3cretTok9
            POSTGRES | SET app.token = $$S3cretTok9$$                                  | S3cretTok9
            POSTGRES | SET app.token = U&'S3cretTok9'                                  | S3cretTok9
            POSTGRES | /* /* */ ' */ SET app.token = 'S3cretTok9'                      | S3cretTok9
            POSTGRES | -- it's\\nSET app.token = 'S3cretTok9'                          | S3cretTok9
            POSTGRES | \\nSET app.token = 'S3cretTok9'                                 | S3cretTok9
            POSTGRES | SELECT set_config('app.secret', 'S3cretTok9', false)            | S3cretTok9
            POSTGRES | ALTER ROLE atkmask PASSWORD 'S3cretTok9'                        | S3cretTok9
            POSTGRES | CREATE USER atkmask WITH PASSWORD 'S3cretTok9'                  | S3cretTok9
            POSTGRES | SELECT X'DEADBEEF', B'1011', 4111111111111111                   | DEADBEEF
            POSTGRES | SELECT 4111111111111111                                         | 4111111111111111
            POSTGRES | SELECT 'bob@example.com'                                        | bob@example.com
            POSTGRES | SELECT 'S3cretTok9 first line\\nsecond line'                     | S3cretTok9
            POSTGRES | {call p('S3cretTok9')}                                          | S3cretTok9
            POSTGRES | CALL p('S3cretTok9')                                            | S3cretTok9
            POSTGRES | SELECT * FROM t WHERE a = ? AND b = 'S3cretTok9'                | S3cretTok9
            POSTGRES | SELECT * FROM t WHERE tags <@'{S3cretTok9}'                     | S3cretTok9
            POSTGRES | SELECT @'-4111111111111111'::bigint                             | 4111111111111111
            POSTGRES | SET app.token TO "S3cretTok9"                                   | S3cretTok9
            POSTGRES | SET app.token TO S3cretTok9                                     | S3cretTok9
            POSTGRES | SELECT 4111_1111_1111_1111                                      | 1111_1111
            MYSQL    | SET @a = 'S3cretTok9'                                           | S3cretTok9
            MYSQL    | SET SESSION x = "S3cretTok9"                                    | S3cretTok9
            MYSQL    | SET @a = 'it\\'s S3cretTok9'                                     | S3cretTok9
            MYSQL    | SET @a = 'it\\' S3cretTok9 '                                     | S3cretTok9
            MYSQL    | SET @a = "it\\"s S3cretTok9"                                     | S3cretTok9
            MYSQL    | # it's\\nSET @a = 'S3cretTok9'                                  | S3cretTok9
            MYSQL    | SET @a = _utf8mb4'S3cretTok9'                                   | S3cretTok9
            MYSQL    | SET @a = 0xDEADBEEF                                             | DEADBEEF
            MYSQL    | SET @a = X'DEADBEEF'                                            | DEADBEEF
            MYSQL    | SET PASSWORD = PASSWORD('S3cretTok9')                           | S3cretTok9
            MYSQL    | ALTER USER atkmask IDENTIFIED BY 'S3cretTok9'                   | S3cretTok9
            MYSQL    | SET @a = /*!99999 '*/ 'S3cretTok9' /*!99999 '*/                 | S3cretTok9
            MYSQL    | SET @a = /*M!999999 '*/ 'S3cretTok9' /*M!999999 '*/             | S3cretTok9
            MYSQL    | CREATE USER 'atkmask'@'S3cretTok9' IDENTIFIED BY 'pw'          | S3cretTok9
            OTHER    | SET @a = 'S3cretTok9'                                           | S3cretTok9
            OTHER    | SET @a = /*! '*/ 'S3cretTok9' /*! '*/                          | S3cretTok9
            OTHER    | SELECT 1 AS [it's], 'S3cretTok9'                                | S3cretTok9
            OTHER    | SELECT q'[it's S3cretTok9]' FROM dual                          | S3cretTok9
            OTHER    | SELECT 1 // it's\\n, 'S3cretTok9'                               | S3cretTok9
            POSTGRES | -- token S3cretTok9\\nSET app.x = 1                            | S3cretTok9
            POSTGRES | SET app.x TO 'a', "S3cretTok9"                                  | S3cretTok9
            MYSQL    | # token S3cretTok9\\nSET @a = 1                                | S3cretTok9
            MYSQL    | SET @a = 1 /*+ S3cretTok9 */                                    | S3cretTok9
            MYSQL    | SET @a = 1 /*!99999 token S3cretTok9 */                         | S3cretTok9
            MYSQL    | SET @a = 1 /*M!999999 token S3cretTok9 */                       | S3cretTok9
            OTHER    | SET @a = 1 /*! token S3cretTok9 */                              | S3cretTok9
            OTHER    | SELECT "S3cretTok9"                                             | S3cretTok9
            """)
    void theMaskHidesTheSecret(String dialect, String sql, String secret) {
        String text = sql.replace("\\n", "\n").replace("\\\\", "\\");
        String masked = SqlMask.firstLine(text, SqlDialect.valueOf(dialect));
        System.out.println("[atkmask] " + dialect + " " + text.replace("\n", "\\n") + "  ->  " + masked);
        assertThat(masked).as("mask of %s", text).doesNotContain(secret);
    }

    @Test
    void aLongStatementIsCutAfterMaskingNotInsideALiteral() {
        String sql = "SET app.token = '" + "x".repeat(150) + "' || '" + "A".repeat(40) + SECRET + "'";
        String masked = SqlMask.firstLine(" ".repeat(0) + "SELECT " + "a, ".repeat(60) + sql, SqlDialect.POSTGRES);
        assertThat(masked).doesNotContain("S3cret").doesNotContain("AAAA").endsWith("…");
        String nul = SqlMask.firstLine("SET @a = 'x\u0000" + SECRET + "'", SqlDialect.MYSQL);
        assertThat(nul).doesNotContain(SECRET);
    }
}
