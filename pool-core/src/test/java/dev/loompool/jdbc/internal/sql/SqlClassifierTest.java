package dev.loompool.jdbc.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SqlClassifierTest {

    /**
     * Session and transaction only: the per-statement values a text reads or leaves are
     * {@link StatementValuesTest}'s.
     */
    private static SqlEffect base(SqlEffect e) {
        return SqlEffect.of(e.session, e.tx);
    }

    private static SqlEffect pg(String sql) {
        return Classifiers.of(SqlDialect.POSTGRES).classify(sql.replace("\\n", "\n"));
    }

    private static SqlEffect my(String sql) {
        return Classifiers.of(SqlDialect.MYSQL).classify(sql.replace("\\n", "\n"));
    }

    private static SqlEffect other(String sql) {
        return Classifiers.of(SqlDialect.OTHER).classify(sql.replace("\\n", "\n"));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "BEGIN | BEGIN",
        "  begin work | BEGIN",
        "/* tx */ BEGIN ISOLATION LEVEL SERIALIZABLE | BEGIN",
        "-- comment\\nSTART TRANSACTION READ ONLY | BEGIN",
        "START SLAVE | SESSION",
        "COMMIT | END",
        "rollback | END",
        "ABORT | END",
        "END | END",
        "ROLLBACK TO SAVEPOINT s1 | NONE",
        "ROLLBACK WORK TO s1 | NONE",
        "COMMIT AND CHAIN | BEGIN",
        "ROLLBACK AND CHAIN | BEGIN",
        "COMMIT AND NO CHAIN | END",
        "COMMIT PREPARED 'x' | NONE",
        "PREPARE TRANSACTION 'x' | END",
        "BEGIN; ABORT | END",
        "INSERT INTO t VALUES (1); BEGIN | BEGIN",
        "COMMIT; INSERT INTO t VALUES (1) | END",
        "SET search_path TO app | SESSION",
        "SET application_name = 'x' | SESSION",
        "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY | SESSION",
        "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE | NONE",
        "SET LOCAL statement_timeout = 5 | NONE",
        // the driver keeps type names looked up under it past the transaction: reset on return (issue 38)
        "SET LOCAL search_path TO app | SESSION",
        "SET LOCAL SCHEMA 'app' | SESSION",
        "SET CONSTRAINTS ALL DEFERRED | NONE",
        "RESET ALL | SESSION",
        "DISCARD ALL | SESSION",
        "CREATE TEMP TABLE t (id int) | SESSION",
        "create temporary table t (id int) | SESSION",
        "CREATE GLOBAL TEMPORARY TABLE t (id int) | SESSION",
        "CREATE TABLE pg_temp.t (id int) | SESSION",
        "CREATE TABLE t (id int) | SESSION",
        "SELECT 1 AS x INTO TEMP leak | SESSION",
        "SELECT 1 AS x INTO TEMPORARY TABLE leak | SESSION",
        "SELECT 1 AS x INTO leak | SESSION",
        "LISTEN jobs | SESSION",
        "UNLISTEN jobs | SESSION",
        "LOAD 'auto_explain' | SESSION",
        "SELECT pg_advisory_lock(42) | SESSION",
        "select pg_try_advisory_lock(42) | SESSION",
        "SELECT pg_advisory_lock_shared(42) | SESSION",
        "SELECT pg_advisory_xact_lock(42) | NONE",
        "SELECT pg_advisory_unlock(42) | SESSION",
        "WITH t AS (SELECT pg_advisory_lock(42)) SELECT * FROM t | SESSION",
        "SELECT set_config('search_path', 'x', false) | SESSION",
        "SELECT pg_catalog.set_config('search_path', 'x', false) | SESSION",
        "SELECT \"set_config\"('search_path', 'x', false) | SESSION",
        "SELECT set_config ('a.b', 'x', false) | SESSION",
        "SELECT dblink_connect('c', 'dbname=x') | SESSION",
        "SELECT * FROM locks | NONE",
        "SELECT 'SET search_path TO x' | NONE",
        "SELECT $$SET search_path TO x$$ | NONE",
        "SELECT $tag$ it's; SET x = 1 $tag$ | NONE",
        "SELECT E'it\\'s; SET x = 1' | NONE",
        "SELECT 'it''s; SET x = 1' | NONE",
        "SELECT \"col;SET x\" FROM t | NONE",
        "/* /* */ SET x = 1 */ SELECT 1 | NONE",
        "/* /* */ */ SET application_name = 'leak' | SESSION",
        "SELECT 1; /* c */ SET search_path TO x | SESSION",
        "SELECT 1 -- ; SET search_path TO x | NONE",
        "SELECT $1 | NONE",
        "DO $$ BEGIN PERFORM set_config('a', 'b', false); END $$ | SESSION_BEGIN",
        "DO $$ BEGIN NULL; END $$ | SESSION_BEGIN",
        "CALL p() | SESSION_BEGIN",
        "PREPARE q AS SELECT 1 | SESSION",
        "DECLARE c CURSOR WITH HOLD FOR SELECT 1 | SESSION",
        "LOCK TABLE t | NONE",
        "SELECT setseed(0.5) | SESSION",
        "SELECT U&\"set\\005fconfig\"('a.b', 'x', false) | SESSION",
        "SET local.tenant = 'a' | SESSION",
        "SET \"local\".tenant = 'a' | SESSION",
        "SET transaction.tenant = 'a' | SESSION",
        "SET constraints.x = 'a' | SESSION",
        "UPDATE ONLY pg_settings SET setting = 'x' WHERE name = 'search_path' | SESSION",
        "CREATE TEMP TABLE t (id int) ON COMMIT DROP | SESSION",
        "CREATE TEMP TABLE t ON COMMIT DROP AS SELECT 1 | SESSION",
        "CREATE TEMP TABLE t (id int) ON COMMIT DELETE ROWS | SESSION",
        "DECLARE c CURSOR FOR SELECT 1 | NONE",
        "CALL p(); SET search_path TO x | SESSION_BEGIN",
        "CALL p(); SELECT pg_advisory_lock(1) | SESSION_BEGIN",
        "SELECT 1 | NONE",
        "(SELECT 1) | NONE",
        "INSERT INTO t VALUES (1) | NONE",
        "UPDATE settings SET x = 1 | NONE",
        "/*! SET x = 1 */ SELECT 1 | NONE",
        "CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END | SESSION",
        "{? = call f()} | SESSION_BEGIN",
        "{call p(?)} | SESSION_BEGIN",
        "UPDATE pg_settings SET setting = 'x' WHERE name = 'search_path' | SESSION",
        "UPDATE pg_catalog.pg_settings SET setting = 'x' | SESSION",
        "EXPLAIN ANALYZE CREATE TEMP TABLE t AS SELECT 1 | SESSION",
        "EXPLAIN (ANALYZE, BUFFERS) SELECT pg_advisory_lock(1) | SESSION",
        "EXPLAIN SELECT 1 | NONE",
        "SELECT nextval('s') | NONE",
        "SELECT lastval() | NONE",
        "SELECT 1 AS x€$a$; SET search_path = evil; --$a$ | SESSION",
        "SELECT 'a\\' , ' ; SET search_path TO evil; --' | SESSION",
        "SELECT E'a\\' ; SET x = 1; --' | NONE",
        "SELECT E'a\\\\' ; SET x = 1; --' | SESSION",
    })
    void postgresStatements(String sql, SqlEffect expected) {
        assertThat(base(pg(sql))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "SET autocommit=0 | SESSION_BEGIN",
        "set autocommit = off | SESSION_BEGIN",
        "SET @@autocommit := 1 | SESSION_END",
        "SET SESSION autocommit = 0 | SESSION_BEGIN",
        "SET @@session.autocommit = 0 | SESSION_BEGIN",
        "/*!40101 SET autocommit = 0 */ | SESSION_BEGIN",
        "/*! START TRANSACTION */ | BEGIN",
        "/*M!100100 START TRANSACTION */ | BEGIN",
        "/*! SET @v = 5 */ | SESSION",
        "/*M!100100 SET sql_mode = 'ANSI' */ | SESSION",
        "/*!40101 SET SESSION sql_mode='ANSI' */ | SESSION",
        "/*+ hint */ SELECT 1 | NONE",
        "/* /* */ SET x = 1 */ | SESSION",
        "SELECT @v := 5 | SESSION",
        "SELECT 1 INTO @v | SESSION",
        "SELECT @v | NONE",
        "SELECT @@sql_mode | NONE",
        "SET @var = 1 | SESSION",
        "SET NAMES utf8mb4 | SESSION",
        "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE | SESSION",
        "SET LOCAL sql_mode = 'ANSI' | SESSION",
        "SELECT GET_LOCK('job', 10) | SESSION",
        "SELECT get_lock ('job', 10) | SESSION",
        "LOCK TABLES t WRITE | SESSION",
        // MariaDB keeps a sequence's last value per sequence until a session reset: taking one is session state
        "INSERT INTO t VALUES (NEXT VALUE FOR s) | SESSION",
        "SELECT PREVIOUS VALUE FOR s | NONE",
        "FLUSH TABLES t FOR EXPORT | SESSION",
        "UNLOCK TABLES | SESSION",
        "USE test | SESSION",
        "PREPARE q FROM 'SELECT 1' | SESSION",
        "BEGIN NOT ATOMIC SELECT 1; END | SESSION_BEGIN",
        "XA START 'x' | SESSION_BEGIN",
        "EXECUTE IMMEDIATE 'SET @a = 1' | SESSION_BEGIN",
        "LOAD DATA INFILE 'x' INTO TABLE t | SESSION",
        "FLUSH TABLES WITH READ LOCK | SESSION",
        "SELECT 'it\\'s; SET @x = 1' | SESSION",
        "SELECT \"it\\\"s; SET @x = 1\" | SESSION",
        "SELECT 1 # ; SET @x = 1 | NONE",
        "SELECT 1 -- ; SET @x = 1 | NONE",
        "SELECT 1 --; SET @x = 1 | SESSION",
        "SELECT `weird;SET` FROM t | NONE",
        "SELECT 1; SET @x = 1 | SESSION",
        "CREATE PROCEDURE p() BEGIN START TRANSACTION; COMMIT; END | SESSION",
        "SET@x=5 | SESSION",
        "SELECT 5 INTO@x | SESSION",
        "SELECT@x:=5 | SESSION",
        "SET@@session.sql_mode='ANSI_QUOTES' | SESSION",
        "SELECT 5 INTO @`x` | SESSION",
        "SELECT @'x' := 5 | SESSION",
        "SELECT @a.b := 5 | SESSION",
        "SELECT 'a\\' ; SET @v='leaked'; -- ' | SESSION",
        "SELECT 1 AS \"a\\\" ; SET @v='leaked'; -- \" | SESSION",
        "BACKUP LOCK t | SESSION",
        "{call p()} | SESSION_BEGIN",
        "EXPLAIN FORMAT=JSON SELECT GET_LOCK('a', 1) | SESSION",
    })
    void mysqlStatements(String sql, SqlEffect expected) {
        assertThat(base(my(sql))).isEqualTo(expected);
    }

    @Test
    void anUnknownDatabaseReadsAsMuchAsPossibleAsSql() {
        assertThat(other("/*! SET x = 1 */")).isEqualTo(SqlEffect.SESSION);
        assertThat(other("SET LOCAL x = 1")).isEqualTo(SqlEffect.SESSION);
        assertThat(other("SET TRANSACTION READ ONLY")).isEqualTo(SqlEffect.SESSION);
        assertThat(other("BEGIN")).isEqualTo(SqlEffect.BEGIN);
    }

    @ParameterizedTest
    @CsvSource({"''", "'   '", "'-- only a comment'", "';;'"})
    void emptyTextsDoNothing(String sql) {
        assertThat(pg(sql)).isEqualTo(SqlEffect.NONE);
        assertThat(my(sql)).isEqualTo(SqlEffect.NONE);
    }

    /** MySQL Connector/J may join a batch's texts: one that leaves a comment or quote open takes in the next. */
    @ParameterizedTest
    @CsvSource({"'/* unterminated'", "'SELECT 1 /*! 2'", "'SELECT ''open'", "'SELECT `open'"})
    void unterminatedTextsPinOnMysql(String sql) {
        assertThat(pg(sql)).isEqualTo(SqlEffect.NONE);
        assertThat(my(sql).session).isTrue();
    }

    @Test
    void unterminatedQuotesHideNothingTheyDoNotHold() {
        assertThat(pg("SELECT 'unterminated; SET x = 1")).isEqualTo(SqlEffect.NONE);
        assertThat(pg("SET x = 1; SELECT $$ open")).isEqualTo(SqlEffect.SESSION);
    }

    /** Behind a pooler, what runs after a transaction ends or begins in the same text misses its isolation. */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "COMMIT; INSERT INTO t VALUES (1) | true",
        "COMMIT; BEGIN | true",
        "end;select 1 | true",
        "ROLLBACK AND CHAIN; SELECT 1 | true",
        "/* x */ abort; -- c\\nSELECT 1 | true",
        "BEGIN; UPDATE t SET v = 1; COMMIT | true",
        "START TRANSACTION ISOLATION LEVEL SERIALIZABLE; SELECT 1 | true",
        "PREPARE TRANSACTION 'x'; SELECT 1 | true",
        "COMMIT | false",
        "COMMIT; | false",
        "COMMIT;; -- only a comment | false",
        "INSERT INTO t VALUES (1); COMMIT | false",
        "SELECT 1; SELECT 2 | false",
        "ROLLBACK TO SAVEPOINT s; SELECT 1 | false",
        "SELECT 'COMMIT; INSERT' | false",
        "SELECT $$COMMIT; BEGIN$$, 1 | false",
        "CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END; | false",
    })
    void aStatementAfterATransactionBoundaryInOneTextIsFound(String sql, boolean expected) {
        assertThat(Classifiers.of(SqlDialect.POSTGRES).transactionBoundaryThenMore(sql.replace("\\n", "\n")))
                .isEqualTo(expected);
    }

    @Test
    void aRepeatedTextIsClassifiedOnceAndAnswersTheSame() {
        SqlClassifier classifier = Classifiers.of(SqlDialect.POSTGRES);
        String sql = "SET search_path TO app";
        assertThat(classifier.classify(sql)).isSameAs(classifier.classify(sql)).isEqualTo(SqlEffect.SESSION);
        assertThat(classifier.classify(null)).isEqualTo(SqlEffect.NONE);
    }

    /** Session SQL that may change the search path, after which the driver's type names are put back (issue 38). */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "SET search_path TO app | true",
        "SET SCHEMA 'app' | true",
        "SELECT set_config(?, ?, false) | true",
        "DO $$ BEGIN EXECUTE format('SET search_path TO %s', 'app'); END $$ | true",
        "UPDATE pg_settings SET setting = 'app' WHERE name = 'search_path' | true",
        "SET statement_timeout = 5 | false",
        "SET my.search_path_x = 1 | false",
        "CREATE TEMP TABLE t (id int) | false",
    })
    void searchPathChanges(String sql, boolean changes) {
        assertThat(Classifiers.of(SqlDialect.POSTGRES).mayChangeSearchPath(sql)).isEqualTo(changes);
    }

    /** Behind PgBouncer in transaction mode only what a kept session would hold passes. */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "SELECT nextval('s') | NONE",
        "INSERT INTO t VALUES (nextval('s'), setval('u', 3)) | NONE",
        "SELECT currval('s') | SESSION",
        "SELECT lastval() | SESSION",
        "SELECT set_config('app.tenant', 'a', true) | NONE",
        "SELECT set_config('app.tenant', 'a', false) | SESSION",
        "SELECT set_config('app.tenant', f(1, 2), true) | NONE",
        "SELECT set_config('app.tenant', 'a', is_local) | SESSION",
        "SELECT set_config('search_path', 'x', \"true\") FROM f | SESSION",
        "SELECT setseed(0.5) | SESSION",
        "SELECT set_config('app.tenant', 'a', true), pg_advisory_lock(1) | SESSION",
        "SET search_path TO x | SESSION",
        "SET LOCAL search_path TO x | NONE",
        "SELECT pg_advisory_lock(1) | SESSION",
        "SELECT pg_advisory_xact_lock(1) | NONE",
        "DO $$ BEGIN NULL; END $$ | SESSION_BEGIN",
        "CALL p() | SESSION_BEGIN",
    })
    void behindAPoolerInTransactionMode(String sql, SqlEffect effect) {
        assertThat(base(Classifiers.of(SqlDialect.POSTGRES).classifyBehindPooler(sql))).isEqualTo(effect);
    }
}
