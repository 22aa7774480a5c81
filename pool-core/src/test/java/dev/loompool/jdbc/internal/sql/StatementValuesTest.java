package dev.loompool.jdbc.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What a text reads of an earlier statement, leaves for the next, or reads of the connection's identity. */
class StatementValuesTest {

    private static SqlEffect pg(String sql) {
        return Classifiers.of(SqlDialect.POSTGRES).classify(sql);
    }

    private static SqlEffect my(String sql) {
        return Classifiers.of(SqlDialect.MYSQL).classify(sql);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "SELECT lastval() | NONE+READS_KEPT",
        "SELECT currval('s') | NONE+READS_KEPT",
        "select \"currval\"('s') | NONE+READS_KEPT",
        "SELECT pg_catalog.lastval() | NONE+READS_KEPT",
        "SELECT nextval('s') | NONE+LEAVES",
        "SELECT setval('s', 5) | NONE+LEAVES",
        "INSERT INTO t (v) VALUES (1) | NONE+LEAVES+GENERATED",
        "insert into t select * from u | NONE+LEAVES+GENERATED",
        "INSERT INTO t (v) VALUES (1) RETURNING id | NONE+LEAVES+GENERATED+HANDED",
        "INSERT INTO t (v) VALUES (nextval('s')) RETURNING id | NONE+LEAVES",
        "INSERT INTO t VALUES (1); INSERT INTO u VALUES (2) RETURNING id | NONE+LEAVES",
        "WITH x AS (INSERT INTO t VALUES (1)) SELECT 1 | NONE+LEAVES+GENERATED",
        "INSERT INTO t VALUES (1); SELECT lastval() | NONE+LEAVES+GENERATED",
        "SELECT lastval(); INSERT INTO t VALUES (1) | NONE+READS_KEPT+LEAVES+GENERATED",
        "BEGIN; INSERT INTO t VALUES (1) | BEGIN+LEAVES+GENERATED",
        "BEGIN; INSERT INTO t VALUES (1); ABORT | END",
        "INSERT INTO t VALUES (1); COMMIT; SELECT lastval() | END",
        "CREATE FUNCTION f() RETURNS bigint LANGUAGE sql AS 'SELECT lastval()' | SESSION",
        "SELECT pg_backend_pid() | NONE+IDENTITY",
        "SELECT 'lastval()', \"nextval\" FROM t | NONE",
        "SELECT replace(a, 'x', 'y') FROM t | NONE",
        "UPDATE t SET v = 1 | NONE",
        "SET search_path TO x | SESSION",
    })
    void postgres(String sql, String expected) {
        assertThat(pg(sql)).isEqualTo(SqlEffect.named(expected));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "SELECT LAST_INSERT_ID() | NONE+READS_KEPT",
        "SELECT last_insert_id( ) | NONE+READS_KEPT",
        "UPDATE seq SET id = LAST_INSERT_ID(id + 1) | SESSION+LEAVES",
        "SELECT @@identity | NONE+READS_KEPT",
        "SELECT @@session.last_insert_id | NONE+READS_KEPT",
        "SELECT @@last_gtid | NONE+READS_KEPT",
        "SELECT PREVIOUS VALUE FOR s | NONE+READS_KEPT",
        "SELECT NEXT VALUE FOR s | SESSION+LEAVES",
        "SELECT nextval(s), s.nextval FROM dual | SESSION+LEAVES",
        "SELECT lastval(s) | NONE+READS_KEPT",
        "INSERT INTO t (v) VALUES (1) | NONE+LEAVES+GENERATED",
        "REPLACE INTO t (v) VALUES (1) | NONE+LEAVES+GENERATED",
        "INSERT INTO t (id) VALUES (1) ON DUPLICATE KEY UPDATE id = LAST_INSERT_ID(id) | SESSION+LEAVES",
        "SELECT REPLACE('a', 'a', 'b') | NONE",
        "SELECT INSERT('abc', 1, 1, 'x') | NONE",
        "SELECT SQL_CALC_FOUND_ROWS * FROM t LIMIT 1 | NONE+LEAVES",
        "SELECT FOUND_ROWS() | NONE+READS_FOUND+SETS_FOUND",
        "SELECT SQL_CALC_FOUND_ROWS * FROM t LIMIT 1; SELECT FOUND_ROWS() | NONE+LEAVES",
        "SELECT 1/0; SHOW WARNINGS | NONE",
        "INSERT INTO t (v) VALUES (1); SELECT LAST_INSERT_ID() | NONE+LEAVES+GENERATED",
        "CREATE PROCEDURE p() BEGIN SELECT FOUND_ROWS(); SELECT LAST_INSERT_ID(); END | SESSION",
        "BEGIN NOT ATOMIC SELECT LAST_INSERT_ID(); END | SESSION_BEGIN+READS_KEPT",
        "SELECT ROW_COUNT() | NONE+READS_LAST",
        "SHOW WARNINGS | NONE+READS_LAST",
        "show errors limit 1 | NONE+READS_LAST",
        "SHOW COUNT(*) WARNINGS | NONE+READS_LAST",
        "GET DIAGNOSTICS @n = NUMBER | SESSION+READS_LAST",
        "GET CURRENT DIAGNOSTICS CONDITION 1 @m = MESSAGE_TEXT | SESSION+READS_LAST",
        "SELECT @@warning_count, @@session.error_count | NONE+READS_LAST",
        "SELECT @@LOCAL.warning_count | NONE+READS_LAST",
        "SELECT CONNECTION_ID() | NONE+IDENTITY",
        "SELECT @@pseudo_thread_id | NONE+IDENTITY",
        "SELECT PS_CURRENT_THREAD_ID() | NONE+IDENTITY",
        "SHOW VARIABLES LIKE 'warning%' | NONE",
        "SELECT @@global.max_connections | NONE",
    })
    void mysql(String sql, String expected) {
        SqlEffect e = my(sql);
        if (!expected.contains("SETS_FOUND")) { // every SELECT sets it: the case below says which do
            e = SqlEffect.of(e.session, e.tx, e.values & ~SqlEffect.SETS_FOUND);
        }
        assertThat(e).isEqualTo(SqlEffect.named(expected));
    }

    /** What FOUND_ROWS() answers next: a SELECT sets it, other statements leave it (MySQL, MariaDB). */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "SELECT v FROM t | true",
        "(SELECT 1) UNION (SELECT 2) | true",
        "WITH x AS (SELECT 1) SELECT * FROM x | true",
        "SET @a = 1 | false",
        "INSERT INTO t VALUES (1) | false",
        "UPDATE t SET v = 1 | false",
        "DO 0 | false",
        "SELECT SQL_CALC_FOUND_ROWS v FROM t LIMIT 1 | true",
    })
    void aSelectSetsWhatFoundRowsAnswers(String sql, boolean sets) {
        assertThat((my(sql).values & SqlEffect.SETS_FOUND) != 0).isEqualTo(sets);
        assertThat((Classifiers.of(SqlDialect.POSTGRES).classify(sql).values & SqlEffect.SETS_FOUND)).isZero();
    }

    @Test
    void anUnknownDatabasesInsertLeavesNothingButItsReadsAreStillReads() {
        SqlClassifier other = Classifiers.of(SqlDialect.OTHER);
        assertThat(other.classify("INSERT INTO t VALUES (1)")).isEqualTo(SqlEffect.NONE);
        assertThat(other.classify("SELECT @@IDENTITY")).isEqualTo(SqlEffect.NONE.with(SqlEffect.READS_KEPT));
    }

    @Test
    void behindAPoolerReadsOfAnEarlierValueStaySessionSoTheyAreRefused() {
        SqlClassifier pg = Classifiers.of(SqlDialect.POSTGRES);
        assertThat(pg.classifyBehindPooler("SELECT lastval()").session).isTrue();
        assertThat(pg.classifyBehindPooler("SELECT nextval('s')").session).isFalse();
    }

    @Test
    void askingForTheGeneratedKeysHandsAnInsertsKeyBackButNotAValueTheTextTakesOfItsOwn() {
        assertThat(pg("INSERT INTO t (v) VALUES (1)").keysAsked()).isEqualTo(SqlEffect.named("NONE+LEAVES+GENERATED+HANDED"));
        assertThat(my("INSERT INTO t (v) VALUES (1)").keysAsked()).isEqualTo(SqlEffect.named("NONE+LEAVES+GENERATED+HANDED"));
        assertThat(pg("SELECT nextval('s')").keysAsked()).isEqualTo(SqlEffect.named("NONE+LEAVES"));
        assertThat(pg("INSERT INTO t VALUES (nextval('s'))").keysAsked()).isEqualTo(SqlEffect.named("NONE+LEAVES"));
        assertThat(pg("INSERT INTO t VALUES (1); INSERT INTO u VALUES (2)").keysAsked()).isEqualTo(SqlEffect.named("NONE+LEAVES"));
        assertThat(pg("UPDATE t SET v = 1").keysAsked()).isSameAs(SqlEffect.NONE);
    }

    /** A classifier whose catalog knows tables: {@code plain} and {@code "Quoted"} generate no key, {@code serial_t} does. */
    private static SqlClassifier withTables(SqlDialect dialect) {
        SqlClassifier c = Classifiers.of(dialect);
        SqlFunctions f = dialect == SqlDialect.POSTGRES ? Classifiers.postgresFunctions() : SqlFunctions.mysql(java.util.Set.of(), java.util.Set.of("trig_t"));
        SqlClassifier reader = Classifiers.of(dialect);
        f.addQuietTables(java.util.Map.of("plain", false, "Quoted", false, "serial_t", true, "trig_t", false,
                "def_t", false, "uuid_t", false, "both", false, "BOTH", true),
                java.util.Map.of("def_t", java.util.List.of("SELECT nextval('s'::regclass)"),
                        "uuid_t", java.util.List.of("SELECT gen_random_uuid()", "SELECT now()")),
                java.util.Set.of("trig_t"), reader);
        c.useFunctions(f, 0);
        return c;
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "INSERT INTO plain (v) VALUES (1) | NONE+LEAVES+GENERATED+HANDED",
        "insert into public.plain values (1) | NONE+LEAVES+GENERATED+HANDED",
        "INSERT INTO \"Quoted\" VALUES (1) | NONE+LEAVES+GENERATED+HANDED",
        "INSERT INTO plain VALUES (1) RETURNING v | NONE+LEAVES+GENERATED+HANDED",
        "INSERT INTO plain VALUES (nextval('s')) | NONE+LEAVES",
        "INSERT INTO serial_t (v) VALUES (1) | NONE+LEAVES+GENERATED",
        "INSERT INTO trig_t (v) VALUES (1) | NONE+LEAVES+GENERATED",
        "INSERT INTO def_t (v) VALUES (1) | NONE+LEAVES+GENERATED",
        "INSERT INTO uuid_t (v) VALUES (1) | NONE+LEAVES+GENERATED+HANDED",
        "INSERT INTO both VALUES (1) | NONE+LEAVES+GENERATED",
        "INSERT INTO created_later VALUES (1) | NONE+LEAVES+GENERATED",
        "WITH x AS (SELECT 1) INSERT INTO plain SELECT * FROM x | NONE+LEAVES+GENERATED",
        "INSERT INTO plain SELECT * FROM serial_t | NONE+LEAVES+GENERATED+HANDED",
    })
    void anInsertIntoATableThatGeneratesNoKeyHandsBackWhatever(String sql, String expected) {
        assertThat(withTables(SqlDialect.POSTGRES).classify(sql)).isEqualTo(SqlEffect.named(expected));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "INSERT INTO plain (v) VALUES (1) | NONE+LEAVES+GENERATED+HANDED",
        "INSERT IGNORE INTO plain (v) VALUES (1) | NONE+LEAVES+GENERATED+HANDED",
        "INSERT plain VALUES (1) | NONE+LEAVES+GENERATED+HANDED",
        "REPLACE INTO `test`.`plain` VALUES (1) | NONE+LEAVES+GENERATED+HANDED",
        "INSERT INTO serial_t (v) VALUES (1) | NONE+LEAVES+GENERATED",
        "INSERT INTO trig_t (v) VALUES (1) | SESSION+LEAVES+GENERATED",
        "INSERT INTO plain (v) VALUES (1) ON DUPLICATE KEY UPDATE v = LAST_INSERT_ID(v) | SESSION+LEAVES",
    })
    void mysqlToo(String sql, String expected) {
        SqlEffect e = withTables(SqlDialect.MYSQL).classify(sql);
        assertThat(SqlEffect.of(e.session, e.tx, e.values & ~SqlEffect.SETS_FOUND)).isEqualTo(SqlEffect.named(expected));
    }

    @Test
    void effectsAreInternedSoACachedClassificationAllocatesNothing() {
        assertThat(SqlEffect.NONE.with(SqlEffect.LEAVES)).isSameAs(SqlEffect.named("NONE+LEAVES"));
        assertThat(SqlEffect.of(true, SqlEffect.Tx.OPEN)).isSameAs(SqlEffect.SESSION_BEGIN);
    }
}
