package dev.loompool.jdbc.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The allowlist (DESIGN.md §4, "Classifying SQL: an allowlist"): what it proves neutral, and what
 * it keeps because it cannot. Texts use {@code \n}, {@code \r} and {@code \1} for those characters.
 */
class SqlAllowlistTest {

    private static String text(String sql) {
        return sql.replace("\\n", "\n").replace("\\r", "\r").replace("\\1", "\u0001");
    }

    private static boolean pgSession(String sql) {
        return Classifiers.of(SqlDialect.POSTGRES).classify(text(sql)).session;
    }

    private static boolean mySession(String sql) {
        return Classifiers.of(SqlDialect.MYSQL).classify(text(sql)).session;
    }

    /** What Hibernate, Spring Data and hand-written applications send: never kept. */
    @ParameterizedTest
    @ValueSource(strings = {
        "select o1_0.id,o1_0.last_name from owners o1_0 where o1_0.last_name like ? escape '' offset ? rows fetch first ? rows only",
        "select p1_0.owner_id,p1_0.id,p1_0.name from pets p1_0 where p1_0.owner_id = any (?)",
        "select count(*) from owners o1_0 where lower(o1_0.last_name) like lower(?)",
        "insert into owners (address,city,first_name) values (?,?,?)",
        "insert into owners (address,city) values (?,?) returning id",
        "update owners set address=?,city=? where id=?",
        "delete from pets where id=?",
        "select nextval('owners_seq')",
        "with x (a, b) as (select 1, 2) select * from x",
        "with recursive t(n) as materialized (values (1)) select n from t",
        "select cast(? as varchar(255)), ?::numeric(10,2), coalesce(a, b), greatest(1, 2), nullif(a, 0) from t",
        "select extract(epoch from now()), date_trunc('day', current_timestamp), substring(s from 1 for 2) from t",
        "select * from generate_series(1, 3) as g(n)",
        "select row_number() over (partition by a order by b), sum(c) filter (where d) from t",
        "select array_agg(x order by x), string_agg(y, ',') within group (order by y) from t",
        "select * from t where exists (select 1 from u where u.id = t.id) and t.id in (1, 2)",
        "select 1 for update",
        "insert into t (id) values (1) on conflict (id) do update set a = excluded.a",
        "MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED THEN INSERT (id) VALUES (s.id)",
        "(select 1) union (select 2)",
        "TABLE t", "VALUES (1), (2)", "SHOW search_path", "EXPLAIN SELECT 1",
        "BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT s", "RELEASE SAVEPOINT s", "SET LOCAL statement_timeout = 5",
        "select random(), clock_timestamp(), gen_random_uuid(), pg_sleep(0)",
        "select pg_advisory_xact_lock(1)",
    })
    void postgresNeutral(String sql) {
        assertThat(pgSession(sql)).as(sql).isFalse();
    }

    /** Not proven neutral: kept, and reset at close. */
    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT query_to_xml('SELECT set_config(''search_path'', ''x'', false)', true, true, '')",
        "SELECT * FROM ts_stat('SELECT to_tsvector(set_config(''a.b'', ''x'', false))')",
        "SELECT query_to_xml('SELECT pg_advisory_lock(1)', true, true, '')",
        "SELECT set_config('a.b', 'x', false)", "SELECT pg_catalog.set_config('a.b', 'x', false)",
        "SELECT \"set_config\"('a.b', 'x', false)", "SELECT set_config /* c */ ('a.b', 'x', false)",
        "SELECT my_function()", "SELECT U&\"set\\005fconfig\"('a.b', 'x', false)",
        "SELECT setseed(0.5)", "SELECT pg_advisory_lock(1)", "SELECT lo_import('/etc/passwd')",
        "SELECT 1 INTO leak", "SELECT 1 INTO TEMP leak",
        "COPY t FROM STDIN", "DO $$BEGIN PERFORM set_config('a.b', 'x', false); END$$", "CALL p()", "{call p()}",
        "CREATE TABLE t (id int)", "ALTER TABLE t ADD c int", "GRANT SELECT ON t TO u", "VACUUM t",
        "SELECT 1 OPERATOR(public.+++) 2", "SELECT 1; SET search_path TO x",
        "SELECT E'a'\\n'\\' ' ; SET search_path TO evil; --'",
    })
    void postgresKept(String sql) {
        assertThat(pgSession(sql)).as(sql).isTrue();
    }

    @Test
    void postgresCatalogKnowledge() {
        SqlClassifier c = Classifiers.postgres(Set.of("evil_view", "leaky"), Set.of("+++"), "random", "lower");
        assertThat(c.classify("SELECT * FROM evil_view").session).as("a view whose rule calls a volatile function").isTrue();
        assertThat(c.classify("SELECT t.leaky FROM t").session).as("t.f calls f(t)").isTrue();
        assertThat(c.classify("SELECT 1 +++ 2").session).as("an operator whose function is volatile").isTrue();
        assertThat(c.classify("SELECT 1 ++++ 2").session).as("an operator containing it").isTrue();
        assertThat(c.classify("SELECT 1 + 2").session).isFalse();
        assertThat(c.classify("SELECT random()").session).as("a volatile random() outside pg_catalog").isTrue();
        assertThat(c.classify("SELECT lower('A')").session).as("a volatile overload of a stable name").isTrue();
        assertThat(c.classify("SELECT upper('A')").session).isFalse();
    }

    @Test
    void postgresWithoutCatalogKeepsEveryCall() {
        SqlClassifier c = new SqlClassifier(SqlDialect.POSTGRES); // the table is not read yet
        assertThat(c.classify("SELECT lower('A')").session).isTrue();
        assertThat(c.classify("SELECT 1").session).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT COUNT(*), NOW(), CONCAT(a, b), IFNULL(a, 0), IF(a, 1, 2), DATE(d), LEFT(s, 2) FROM t",
        "SELECT * FROM t WHERE id IN (1, 2) AND EXISTS (SELECT 1 FROM u)",
        "INSERT INTO t (a) VALUES (1) ON DUPLICATE KEY UPDATE a = VALUES(a)",
        "INSERT IGNORE INTO t(a) VALUES (1)", "REPLACE INTO t (a) VALUES (1)",
        "SELECT LAST_INSERT_ID()", "SELECT LASTVAL(s)", "SELECT 1 INTO OUTFILE '/tmp/x'",
        "SELECT * FROM t USE INDEX (i) WHERE MATCH (a) AGAINST ('x')", "SELECT CAST(a AS CHAR(10)) FROM t",
        "SHOW WARNINGS", "DESCRIBE t", "START TRANSACTION", "COMMIT", "COMMIT AND NO CHAIN NO RELEASE",
        "SELECT /*!40001 SQL_NO_CACHE */ * FROM t", "SELECT 1 -- x\\n", "SELECT 1 # x",
    })
    void mysqlNeutral(String sql) {
        assertThat(mySession(sql)).as(sql).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "IF 1 THEN SET NAMES latin1; END IF", "IF 1 THEN CREATE TEMPORARY TABLE t (id int); END IF",
        "CASE WHEN 1 THEN SET @v = 1; END CASE", "WHILE 0 DO SET @v = 1; END WHILE",
        "REPEAT SET @v = 1; UNTIL 1 END REPEAT", "FOR i IN 1..2 DO SET @v = i; END FOR",
        "l: LOOP SET @v = 1; LEAVE l; END LOOP", "BEGIN NOT ATOMIC SET @v = 1; END",
        "GET DIAGNOSTICS CONDITION 1 @v = MESSAGE_TEXT", "LOAD DATA INFILE 'x' INTO TABLE t (id, @v) SET a = @v",
        "SELECT 1 INTO @v", "SELECT @v := 1", "SELECT GET_LOCK('x', 0)", "SELECT RELEASE_ALL_LOCKS()",
        "SELECT LAST_INSERT_ID(5)", "SELECT my_function()", "SELECT test.f()", "SELECT `concat`('a')",
        "SELECT CONCAT ('a')", "SELECT 1f()",
        "/*!999999 ' */ SELECT 1 INTO @v -- '", "/*M!999999 ' */ SELECT 1 INTO @v -- '",
        "SELECT 1 #\\r'\\nINTO @v -- '", "SELECT 1 --\\1'\\nINTO @v -- '", "SELECT 1 -- \\r'\\nINTO @v -- '",
        "/*!50000 SET autocommit=0 */", "COMMIT RELEASE", "HANDLER t OPEN", "LOCK TABLES t READ",
        "SET STATEMENT max_statement_time=1 FOR SELECT 1", "EXECUTE IMMEDIATE 'SET @v = 1'",
    })
    void mysqlKept(String sql) {
        assertThat(mySession(sql)).as(sql).isTrue();
    }

    @Test
    void compoundMayLeaveATransactionOpen() {
        assertThat(Classifiers.of(SqlDialect.MYSQL).classify("IF 1 THEN START TRANSACTION; END IF").tx)
                .isEqualTo(SqlEffect.Tx.OPEN);
        assertThat(Classifiers.of(SqlDialect.MYSQL).classify("IF 1 THEN SET autocommit = 0; END IF").tx)
                .isEqualTo(SqlEffect.Tx.OPEN);
    }

    @Test
    void theFunctionTableIsReadAgainAfterAMinuteAndAfterDdlByOneCallerAtATime() {
        SqlClassifier c = Classifiers.of(SqlDialect.POSTGRES); // read at 0
        long minute = SqlFunctions.REFRESH_NANOS;
        assertThat(c.refreshDue(minute - 1)).isFalse();
        assertThat(c.refreshDue(minute)).isTrue();
        assertThat(c.refreshDue(minute)).as("one reader at a time").isFalse();
        c.refreshDone(minute, null); // the read failed: the old table stays, tried again sooner
        assertThat(c.refreshDue(minute + 1)).isFalse();
        assertThat(c.refreshDue(minute + minute / 4)).isTrue();
        c.refreshDone(minute + minute / 4, SqlFunctions.known(SqlDialect.POSTGRES));
        assertThat(c.classify("SELECT lower('a')").session).as("the new table is used").isTrue();
        c.noteCatalogChange("SELECT 1");
        assertThat(c.refreshDue(minute + minute / 2)).isFalse();
        c.noteCatalogChange("CREATE OR REPLACE FUNCTION f() RETURNS int VOLATILE LANGUAGE sql AS 'SELECT 1'");
        assertThat(c.refreshDue(minute + minute / 2)).as("after DDL through the pool").isTrue();
    }

    @Test
    void onlyDatabasesWithACatalogReadATable() {
        SqlClassifier c = Classifiers.of(SqlDialect.OTHER);
        c.useFunctions(SqlFunctions.known(SqlDialect.OTHER), 0); // as a pool does at start
        c.noteCatalogChange("CREATE FUNCTION f() RETURNS int RETURN 1");
        assertThat(c.refreshDue(Long.MAX_VALUE)).isFalse();
    }
}
