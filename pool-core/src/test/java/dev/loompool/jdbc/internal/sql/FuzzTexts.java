package dev.loompool.jdbc.internal.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.UnaryOperator;

/**
 * Statement texts for the differential fuzzer, built from pieces: statements that are neutral,
 * payloads that change the session (run as they are, or hidden where the server does not run
 * them), and lexical fragments (quotes, escapes, comment openers, versioned comments, line ends)
 * that make the classifier and the server read the same text differently. A text is a list of
 * pieces, so that a counterexample shrinks by dropping pieces.
 *
 * <p>Every name a payload leaves behind is one the fingerprint looks for ({@link SessionFingerprint}).
 * Public for the pool's sequence fuzzer ({@code dev.loompool.jdbc.fuzz.PoolSequenceFuzzTest}), which runs them through the pool.
 */
public final class FuzzTexts {

    private static final String T = FuzzTarget.TABLE;

    /** Between pieces: every line end and control character the servers treat as a separator, or none. */
    private static final String[] SEPARATORS = {" ", " ", "\n", "\r", "\r\n", "\t", "", "\f", "\u000B", "\n\n"};

    private static final String[] PG_NEUTRAL = {
        "SELECT 1", "SELECT v FROM " + T, "INSERT INTO " + T + " VALUES (1, 'x')",
        "UPDATE " + T + " SET v = 'y' WHERE id = -1", "DELETE FROM " + T + " WHERE id = -1",
        "WITH w AS (SELECT 1 AS a) SELECT a FROM w", "VALUES (1)", "TABLE " + T, "SELECT now()",
        "SELECT set_config('fz.x', 'local', true)", "SET LOCAL fz.y = 'local'", "SELECT lower('A')",
    };

    /** Expressions that change the session wherever a query evaluates them. */
    private static final String[] PG_EXPRESSIONS = {
        "set_config('fz.x', 'e', false)",
        "pg_catalog.set_config('search_path', 'fz_schema', false)",
        "\"set_config\"('fz.y', 'q', false)",
        "pg_advisory_lock(774411)",
        "pg_try_advisory_lock(774412)",
        "pg_advisory_lock_shared(774413)",
        "query_to_xml('SELECT set_config(''fz.y'', ''xml'', false)', true, true, '')",
        "query_to_xml('SELECT pg_advisory_lock(774414)', true, true, '')",
        "query_to_xml_and_xmlschema('SELECT set_config(''fz.z'', ''xs'', false)', true, true, '')",
        "(SELECT count(*) FROM ts_stat('SELECT to_tsvector(set_config(''fz.z'', ''ts'', false))'))",
        // the same call spelled every way the server accepts
        "set_config ('fz.x', 'space', false)", "set_config/**/('fz.x', 'comment', false)",
        "set_config\n('fz.x', 'newline', false)", "pg_catalog . set_config('fz.x', 'dot', false)",
        "\"pg_catalog\".\"set_config\"('fz.x', 'quoted', false)", "U&\"set\\005fconfig\"('fz.x', 'uescape', false)",
        "(SELECT s FROM set_config('fz.x', 'from', false) AS s)", "(SELECT * FROM ROWS FROM (set_config('fz.x', 'rows', false)))",
        "PG_ADVISORY_LOCK(774415)",
    };

    private static final String[] PG_STATEMENTS = {
        "SET fz.x = 's'", "SET application_name = 'fz'", "SET search_path TO fz_schema, public",
        "SET SESSION statement_timeout = 4321", "SET TimeZone TO 'Asia/Tokyo'",
        "CREATE TEMP TABLE fz_tmp (id int)", "CREATE TEMPORARY TABLE fz_tmp2 AS SELECT 1 AS a",
        "SELECT 1 AS a INTO TEMP fz_tmp3", "CREATE TABLE pg_temp.fz_tmp4 (id int)",
        "CREATE TEMP VIEW fz_v AS SELECT 1", "CREATE TEMP SEQUENCE fz_seq",
        "CREATE FUNCTION pg_temp.fz_f() RETURNS int LANGUAGE sql AS 'SELECT 1'",
        "LISTEN fz_chan", "PREPARE fz_p AS SELECT 1", "DECLARE fz_c CURSOR WITH HOLD FOR SELECT 1",
        "SET ROLE postgres",
        "DO $$BEGIN PERFORM set_config('fz.x', 'do', false); END$$",
        "BEGIN", "START TRANSACTION", "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY",
        "UPDATE pg_settings SET setting = 'fzu' WHERE name = 'application_name'",
        "SET standard_conforming_strings = off",
        "EXPLAIN ANALYZE SELECT set_config('fz.x', 'explain', false)",
    };

    /**
     * Plain queries and DML over the schema objects {@link FuzzTarget#prepare} makes, which run
     * session-changing code without naming it: the catalog, not the text, says what they do.
     */
    private static final String[] PG_OBJECT_STATEMENTS = {
        "SELECT * FROM loompool_fuzz_view", "TABLE loompool_fuzz_view",
        "SELECT count(*) FROM (SELECT s FROM loompool_fuzz_view) AS v",
        "SELECT table_to_xml('loompool_fuzz_view', true, true, '')",
        "INSERT INTO loompool_fuzz_default (id) VALUES (1)", "INSERT INTO loompool_fuzz_check VALUES (1)",
        "SELECT 1::loompool_fuzz_domain", "SELECT CAST(2 AS loompool_fuzz_domain)", "SELECT 'x'::text::loompool_fuzz_type",
    };

    private static final String[] MY_OBJECT_STATEMENTS = {
        "SELECT * FROM loompool_fuzz_view", "SELECT l FROM loompool_fuzz_view",
        "SELECT * FROM loompool_fuzz_fview", "SELECT count(*) FROM (SELECT f FROM loompool_fuzz_fview) AS v",
    };

    /** Fragments that open or close something in one reading and not in another. */
    private static final String[] PG_FRAGMENTS = {
        "'", "''", "'\\'", "'\\''", "E'", "E'\\''", "e'\\\\'", "E'a'\n'\\''", "'a'\n'b'", "'a' 'b'",
        "$$", "$fz$", "fz$$", "a$", "$1", "1$$", "\"", "\"\"", "/*", "*/", "/* /*", "--", "-- ",
        "\\", "U&'", "U&\"", "U&'\\0027'", "UESCAPE '!'", "X'", "B'", "N'", "::text", "E'\\\\\n'",
        "E", "e", "U&", "/*!", "#", ";", "(", ")", ",",
    };

    /**
     * Select-list items the server reads as one value, written so that a reader with other rules
     * (another escape mode, another comment end, a string continuation, a skipped versioned
     * comment) ends the literal or comment elsewhere: in neutral SELECTs before and after a
     * payload, they leave the classifier inside a string across the payload.
     */
    private static final String[] PG_TRICKY = {
        "'p\\'", "E'\\''", "E'\\\\'", "E'a'\n'\\''", "E'a'\r\n'\\''", "E'a'\r'\\''", "'a'\n'b'", "'a'\r'b'",
        "$$'$$", "$fz$'$$$fz$", "U&'\\0027'", "U&'!0027' UESCAPE '!'", "1 AS \"x'\"", "/* ' */ 1",
        "/* /* */ ' */ 1", "-- '\n1", "-- '\r1", "B'1'", "X'1f'", "E'\\x27'", "e'\\047'", "'\\'", "'it''s'",
        "1 AS a$$", "1 AS \"a\"\"'\"", "E'\\\\'\n'\\''", "'\\' 'x'",
    };

    private static final String[] MY_TRICKY = {
        "'a\\'b'", "'\\\\'", "\"a\\\"b\"", "'it''s'", "1 AS `a``b'`", "/*!999999 ' */ 1", "/*M!999999 ' */ 1",
        "/*!110000 \" */ 1", "/*!101120 ' */ 1", "# '\n1", "-- '\n1", "--\t'\n1", "--\u0001'\n1", "--\r'\n1",
        "# x\r'\n1", "-- x\r'\n1", "/* ' */ 1", "_latin1'a\\''", "N'a\\'b'", "X'41'", "'a' '\\''",
        "/*! 1 */", "/*!50000 '\\'' */", "/*M!100000 '\\'' */", "/*!99999 '\\'' */", "/* /* ' */ 1",
        "'\\'' '''", "\"'\"", "'\"'",
    };

    private static final String[] MY_NEUTRAL = {
        "SELECT 1", "SELECT v FROM " + T, "INSERT INTO " + T + " VALUES (1, 'x')",
        "UPDATE " + T + " SET v = 'y' WHERE id = -1", "DELETE FROM " + T + " WHERE id = -1",
        "REPLACE INTO " + T + " VALUES (1, 'x')", "WITH w AS (SELECT 1 AS a) SELECT a FROM w",
        "VALUES (1)", "SELECT 1 FROM DUAL", "SELECT @fz_a", "SELECT lower('A')",
        "SET STATEMENT max_statement_time = 5 FOR SELECT 1",
    };

    private static final String[] MY_EXPRESSIONS = {
        "@fz_a := 1", "GET_LOCK('fz_lock', 0)", "get_lock('fz_lock2', 0)", "(SELECT @fz_b := 2)",
        "`GET_LOCK`('fz_lock', 0)", "GET_LOCK/**/('fz_lock', 0)", "GET_LOCK\n('fz_lock2', 0)",
        "/*!GET_LOCK*/('fz_lock', 0)", "test.loompool_fuzz_f()", "`loompool_fuzz_f`()", "loompool_fuzz_f ()",
        "`test`.`loompool_fuzz_f`()",
    };

    private static final String[] MY_STATEMENTS = {
        "SET @fz_a = 1", "SET @fz_a := 2", "SET @'fz_b' = 3", "SET @`fz_b` = 4", "SET @\"fz_b\" = 5",
        "SELECT 5 INTO @fz_a", "SELECT 6 FROM DUAL INTO @fz_b",
        "SET NAMES utf8mb3", "SET collation_connection = utf8mb4_bin", "SET SESSION sql_mode = 'ANSI_QUOTES'",
        "SET sql_mode = 'NO_BACKSLASH_ESCAPES'",
        "SET @@session.wait_timeout = 4321", "SET SESSION wait_timeout = 4322", "SET autocommit = 0",
        "SET @@autocommit = OFF", "CREATE TEMPORARY TABLE fz_tmp (id int)",
        "CREATE TEMPORARY TABLE " + T + " (id int)", "CREATE TEMPORARY TABLE fz_tmp2 AS SELECT 1 AS a",
        "SELECT GET_LOCK('fz_lock', 0)", "DO GET_LOCK('fz_lock2', 0)", "GET DIAGNOSTICS @fz_a = NUMBER",
        "IF 1 THEN SET @fz_a = 6; END IF", "IF 1 THEN SET NAMES utf8mb3; END IF",
        "CASE WHEN 1 THEN SET @fz_a = 7; END CASE", "REPEAT SET @fz_a = 8; UNTIL 1 END REPEAT",
        "BEGIN NOT ATOMIC fz_l: LOOP SET @fz_a = 9; LEAVE fz_l; END LOOP; END", "FOR fz_i IN 1..1 DO SET @fz_a = 10; END FOR",
        "WHILE @fz_n IS NULL DO SET @fz_n = 1; END WHILE", "BEGIN NOT ATOMIC SET @fz_a = 11; END",
        "BEGIN NOT ATOMIC CREATE TEMPORARY TABLE fz_tmp (id int); END",
        "START TRANSACTION", "BEGIN", "PREPARE fz_p FROM 'SELECT 1'", "USE information_schema",
    };

    private static final String[] MY_FRAGMENTS = {
        "'", "\"", "`", "'\\''", "\"\\\"\"", "'\\\\'", "\\", "#", "--", "-- ", "--\t", "--\u0001", "--\r",
        "/*", "*/", "/* /*", "/*!", "/*M!", "/*!999999 '", "/*M!999999 \"", "/*!50000", "/*M!100000",
        "/*!101120", "/*!99999", "/*!100000", "*/ '", "N'", "X'", "_utf8'", "_latin1'", "@'", "@`", "@\"",
        "'a' 'b'", "$$", ";", "(", ")", ",", "\\'", "'\\", "b'", "0x",
    };

    /** Versions for /*!NNNNN and /*M!NNNNNN comments, below and above the server's (10.11 here). */
    private static final String[] MY_VERSIONS = {"", "50000", "99999", "100000", "101100", "101120", "110000", "999999"};

    private final SqlDialect dialect;

    public FuzzTexts(SqlDialect dialect) {
        this.dialect = dialect;
    }

    /**
     * Every payload as the simplest text that runs it: each statement, and each expression in a
     * SELECT. {@code FuzzTextsTest} checks that each one changes the fingerprint, so that a payload
     * the fingerprint cannot see does not pass for a neutral text.
     */
    List<String> payloads() {
        boolean pg = dialect == SqlDialect.POSTGRES;
        List<String> all = new ArrayList<>(List.of(pg ? PG_STATEMENTS : MY_STATEMENTS));
        all.addAll(List.of(pg ? PG_OBJECT_STATEMENTS : MY_OBJECT_STATEMENTS));
        for (String e : pg ? PG_EXPRESSIONS : MY_EXPRESSIONS) {
            all.add("SELECT " + e);
        }
        return all;
    }

    /** One text: one to six elements, each a statement, a payload (plain, hidden, or among fragments), or a fragment. */
    public List<String> generate(SplittableRandom r) {
        List<String> parts = new ArrayList<>();
        int elements = 1 + r.nextInt(6);
        for (int i = 0; i < elements; i++) {
            if (i > 0) {
                parts.add(pick(r, SEPARATORS));
            }
            int kind = r.nextInt(100);
            if (kind < 15) {
                parts.add(neutral(r));
            } else if (kind < 30) {
                parts.add(payload(r));
            } else if (kind < 50) {
                parts.add(hidden(r, payload(r)));
            } else if (kind < 60) {
                trap(r, parts);
            } else if (kind < 75) {
                parts.add(tricky(r));
            } else if (kind < 90) {
                sandwich(r, parts);
            } else {
                parts.add(fragment(r));
            }
            if (r.nextInt(3) == 0) {
                parts.add(";");
            }
        }
        return parts;
    }

    /**
     * A payload between fragments, each piece apart: where the classifier and the server disagree
     * on where a literal or comment starts or ends, the payload falls on the side where one of them
     * sees it and the other does not ({@code /*!999999 ' *}{@code / SET @v = 1}, {@code # \r'\nSET …}).
     */
    private void trap(SplittableRandom r, List<String> parts) {
        int before = 1 + r.nextInt(3);
        for (int i = 0; i < before; i++) {
            parts.add(fragment(r));
            parts.add(pick(r, SEPARATORS));
        }
        parts.add(payload(r));
        int after = r.nextInt(3);
        for (int i = 0; i < after; i++) {
            parts.add(pick(r, SEPARATORS));
            parts.add(fragment(r));
        }
    }

    /**
     * A payload between two tricky SELECTs, each its own statement: the first may leave a reader
     * inside a literal that only the second one's quotes close, with the payload in between.
     */
    private void sandwich(SplittableRandom r, List<String> parts) {
        parts.add(tricky(r));
        parts.add(pick(r, SEPARATORS));
        parts.add(";");
        parts.add(pick(r, SEPARATORS));
        parts.add(payload(r));
        parts.add(";");
        parts.add(pick(r, SEPARATORS));
        parts.add(tricky(r));
    }

    /** A neutral SELECT of one to three tricky items, valid in the server's reading. */
    private String tricky(SplittableRandom r) {
        String[] from = dialect == SqlDialect.POSTGRES ? PG_TRICKY : MY_TRICKY;
        StringBuilder s = new StringBuilder("SELECT ").append(pick(r, from));
        for (int more = r.nextInt(3); more > 0; more--) {
            s.append(',').append(pick(r, SEPARATORS)).append(pick(r, from));
        }
        return s.toString();
    }

    private String neutral(SplittableRandom r) {
        return pick(r, dialect == SqlDialect.POSTGRES ? PG_NEUTRAL : MY_NEUTRAL);
    }

    private String fragment(SplittableRandom r) {
        if (dialect == SqlDialect.MYSQL && r.nextInt(4) == 0) {
            return (r.nextBoolean() ? "/*!" : "/*M!") + pick(r, MY_VERSIONS) + pick(r, new String[] {" ", "", "\n"});
        }
        return pick(r, dialect == SqlDialect.POSTGRES ? PG_FRAGMENTS : MY_FRAGMENTS);
    }

    /** A statement that changes the session, or a query that evaluates an expression that does. */
    public String payload(SplittableRandom r) {
        boolean pg = dialect == SqlDialect.POSTGRES;
        if (r.nextInt(6) == 0) {
            return pick(r, pg ? PG_OBJECT_STATEMENTS : MY_OBJECT_STATEMENTS);
        }
        if (r.nextInt(3) > 0) {
            return pick(r, pg ? PG_STATEMENTS : MY_STATEMENTS);
        }
        String e = pick(r, pg ? PG_EXPRESSIONS : MY_EXPRESSIONS);
        return switch (r.nextInt(5)) {
            case 0 -> "VALUES (" + e + ")";
            case 1 -> "WITH w AS (SELECT " + e + " AS a) SELECT * FROM w";
            case 2 -> "INSERT INTO " + T + " (id, v) SELECT 3, " + e;
            case 3 -> "SELECT 1, " + e;
            default -> "SELECT " + e;
        };
    }

    /**
     * The payload where the server, read by its own rules, does not run it: inside a literal, a
     * quoted name, a comment, or a versioned comment for another server version. A text the
     * classifier reads otherwise pins needlessly; a hider the server reads otherwise is a finding.
     */
    String hidden(SplittableRandom r, String p) {
        List<UnaryOperator<String>> ways = new ArrayList<>(List.of(
                x -> "SELECT '" + x.replace("'", "''") + "'",
                x -> "SELECT 1 AS \"" + x.replace("\"", "\"\"") + "\"",
                x -> "/* " + x.replace("*/", "* /") + " */",
                x -> "-- " + x.replace('\n', ' ').replace('\r', ' ') + "\n",
                x -> "SELECT 'a'\n'" + x.replace("'", "''") + "'"));
        if (dialect == SqlDialect.POSTGRES) {
            ways.add(x -> "SELECT E'" + x.replace("\\", "\\\\").replace("'", "\\'") + "'");
            ways.add(x -> "SELECT $$" + x.replace("$$", "$ $") + "$$");
            ways.add(x -> "SELECT $fz$" + x.replace("$fz$", "") + "$fz$");
            ways.add(x -> "/* /* */ " + x.replace("*/", "* /") + " */");
            ways.add(x -> "SELECT U&'" + x.replace("\\", "\\\\").replace("'", "''") + "'");
            ways.add(x -> "SELECT E'a'\n'" + x.replace("\\", "\\\\").replace("'", "\\'") + "'");
        } else {
            ways.add(x -> "SELECT '" + x.replace("\\", "\\\\").replace("'", "\\'") + "'");
            ways.add(x -> "SELECT \"" + x.replace("\"", "\"\"") + "\"");
            ways.add(x -> "SELECT 1 AS `" + x.replace("`", "``") + "`");
            ways.add(x -> "# " + x.replace('\n', ' ').replace('\r', ' ') + "\n");
            ways.add(x -> "/*!999999 " + x.replace("*/", "* /") + " */");
            ways.add(x -> "/*M!999999 " + x.replace("*/", "* /") + " */");
            ways.add(x -> "/*!110000 " + x.replace("*/", "* /") + " */");
        }
        return ways.get(r.nextInt(ways.size())).apply(p);
    }

    private static String pick(SplittableRandom r, String[] from) {
        return from[r.nextInt(from.length)];
    }
}
