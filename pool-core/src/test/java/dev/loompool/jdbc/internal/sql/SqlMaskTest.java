package dev.loompool.jdbc.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The first line of a statement with its literals hidden: what logs and the endpoint show of a pin's SQL. */
class SqlMaskTest {

    private static String pg(String sql) {
        return SqlMask.firstLine(sql, SqlDialect.POSTGRES);
    }

    private static String my(String sql) {
        return SqlMask.firstLine(sql, SqlDialect.MYSQL);
    }

    @Test
    void stringsAndNumbersBecomeQuestionMarks() {
        assertThat(pg("SET application_name = 'secret-token-123'")).isEqualTo("SET application_name = ?");
        assertThat(pg("ALTER ROLE x PASSWORD 'hunter2'")).isEqualTo("ALTER ROLE x PASSWORD ?");
        assertThat(pg("SELECT * FROM users WHERE email = 'a@b.c' AND age > 42 LIMIT 10"))
                .isEqualTo("SELECT * FROM users WHERE email = ? AND age > ? LIMIT ?");
        assertThat(pg("SELECT set_config('app.token', 'xyz', false)")).isEqualTo("SELECT set_config(?, ?, false)");
        assertThat(pg("SELECT a1, t2.b FROM t2 WHERE x = $1")).isEqualTo("SELECT a1, t2.b FROM t2 WHERE x = $1");
    }

    @Test
    void prefixedAndDollarQuotedLiteralsAreHiddenWhole() {
        assertThat(pg("SELECT E'it\\'s secret', X'DEADBEEF', B'1010', N'nat'")).isEqualTo("SELECT ?, ?, ?, ?");
        assertThat(pg("DO $body$ BEGIN PERFORM 'secret'; END $body$")).isEqualTo("DO ?");
        assertThat(pg("SELECT $$pass$$")).isEqualTo("SELECT ?");
        assertThat(pg("SELECT 'never closed secret")).isEqualTo("SELECT ?");
    }

    @Test
    void aBackslashTheServerMayReadEitherWayHidesTheWholeLiteral() {
        // with standard_conforming_strings off the literal runs on past \'; hidden under both readings
        String masked = pg("SELECT 'a\\' , 'secret' AS x");
        assertThat(masked).doesNotContain("secret");
        assertThat(my("SET @t = 'a\\' -- secret'")).doesNotContain("secret");
    }

    @Test
    void mysqlDoubleQuotedStringsAreHiddenButPostgresQuotedNamesAreNot() {
        assertThat(my("SET @token = \"s3cr3t\"")).isEqualTo("SET @token = ?");
        assertThat(pg("SELECT \"Name\" FROM \"T\"")).isEqualTo("SELECT \"Name\" FROM \"T\"");
        assertThat(my("SELECT `a` FROM t WHERE b = 0x1F")).isEqualTo("SELECT `a` FROM t WHERE b = ?");
    }

    @Test
    void commentsAreDroppedAndTheFirstLineIsKept() {
        assertThat(pg("/* user bob@example.com */ SELECT 1")).isEqualTo("SELECT ?");
        assertThat(pg("SELECT a, -- pii: bob\n b FROM t")).isEqualTo("SELECT a, b FROM t");
        assertThat(pg("  SELECT a,\n  b FROM t WHERE c = 'x'")).isEqualTo("SELECT a,…");
        assertThat(pg("SELECT 'multi\nline secret', b\nFROM t")).isEqualTo("SELECT ?, b…");
    }

    @Test
    void aLongLineIsCut() {
        String masked = pg("SELECT " + "col, ".repeat(100) + "'secret'");
        assertThat(masked).hasSize(SqlMask.MAX_LENGTH + 1).endsWith("…").doesNotContain("secret");
        assertThat(pg("setAutoCommit(false)")).isEqualTo("setAutoCommit(false)");
        assertThat(SqlMask.firstLine(null, SqlDialect.OTHER)).isNull();
    }

    private static String other(String sql) {
        return SqlMask.firstLine(sql, SqlDialect.OTHER);
    }

    @Test
    void anOtherDatabaseShowsThePrefixBeforeTheFirstUnprovenCharacter() {
        assertThat(other("SET @token = ?")).isEqualTo("SET @token = ?");
        assertThat(other("SELECT a, b FROM users WHERE email = 'x' AND c = d")).isEqualTo("SELECT a, b FROM users WHERE email = ?");
        assertThat(other("INSERT INTO t (a) VALUES ('x', 1)")).isEqualTo("INSERT INTO t (a) VALUES (?");
        assertThat(other("UPDATE t SET a = ? WHERE id = 7")).isEqualTo("UPDATE t SET a = ? WHERE id = ?");
        assertThat(other("SELECT a FROM t /* note */ WHERE b = 1")).isEqualTo("SELECT a FROM t ?");
        assertThat(other("SELECT [a] FROM t")).isEqualTo("SELECT ?");
    }

    @Test
    void aSettingsValueIsHiddenWhateverItsSpelling() {
        assertThat(pg("SET search_path TO app, \"Public\"")).isEqualTo("SET search_path TO ?, ?");
        assertThat(pg("ALTER ROLE r SET app.token = s3cret")).isEqualTo("ALTER ROLE r SET app.token = ?");
        assertThat(pg("ALTER SYSTEM SET work_mem TO big")).isEqualTo("ALTER SYSTEM SET work_mem TO ?");
        assertThat(pg("SET LOCAL x = y; SELECT a FROM t")).isEqualTo("SET LOCAL x = ?; SELECT a FROM t");
        assertThat(pg("UPDATE t SET a = b")).as("not a setting: a column from a column").isEqualTo("UPDATE t SET a = b");
        assertThat(my("SET @a = 1, @b := word")).isEqualTo("SET @a = ?, ?");
        assertThat(my("SET NAMES utf8mb4")).isEqualTo("SET NAMES utf8mb4");
    }

    @Test
    void whatOneReadingTakesForACommentAndAnotherForSqlIsHidden() {
        assertThat(my("SELECT a /*!99999 , secret */ FROM t")).isEqualTo("SELECT a ? FROM t");
        assertThat(my("SELECT a /*! , b */ FROM t")).as("every MySQL runs /*! */").isEqualTo("SELECT a , b FROM t");
        assertThat(pg("SELECT @'-42'::int, 1_000")).isEqualTo("SELECT @?::int, ?");
        assertThat(my("GRANT ALL ON db.* TO 'u'@'10.0.0.7'")).isEqualTo("GRANT ALL ON db.* TO ?@?");
    }
}
