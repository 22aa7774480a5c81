package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SqlClassifierTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "BEGIN | BEGIN",
        "  begin work | BEGIN",
        "/* tx */ BEGIN ISOLATION LEVEL SERIALIZABLE | BEGIN",
        "-- comment\\nSTART TRANSACTION READ ONLY | BEGIN",
        "START SLAVE | NONE",
        "COMMIT | END",
        "rollback | END",
        "ROLLBACK TO SAVEPOINT s1 | NONE",
        "END | END",
        "SET autocommit=0 | AUTOCOMMIT_OFF",
        "set autocommit = off | AUTOCOMMIT_OFF",
        "SET @@autocommit := 1 | AUTOCOMMIT_ON",
        "SET search_path TO app | SESSION",
        "SET application_name = 'x' | SESSION",
        "SET @var = 1 | SESSION",
        "SET NAMES utf8mb4 | SESSION",
        "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE | NONE",
        "SET LOCAL statement_timeout = 5 | NONE",
        "RESET ALL | SESSION",
        "CREATE TEMP TABLE t (id int) | SESSION",
        "create temporary table t (id int) | SESSION",
        "CREATE GLOBAL TEMPORARY TABLE t (id int) | SESSION",
        "CREATE TABLE t (id int) | NONE",
        "LISTEN jobs | SESSION",
        "UNLISTEN jobs | NONE",
        "SELECT pg_advisory_lock(42) | SESSION",
        "select pg_try_advisory_lock(42) | SESSION",
        "SELECT pg_advisory_xact_lock(42) | NONE",
        "SELECT GET_LOCK('job', 10) | SESSION",
        "SELECT * FROM locks | NONE",
        "LOCK TABLES t WRITE | SESSION",
        "USE test | SESSION",
        "PREPARE q FROM 'SELECT 1' | SESSION",
        "DECLARE c CURSOR WITH HOLD FOR SELECT 1 | SESSION",
        "DO $$ BEGIN PERFORM pg_advisory_lock(1); END $$ | SESSION",
        "DO $$ BEGIN NULL; END $$ | NONE",
        "SELECT 1 | NONE",
        "(SELECT 1) | NONE",
        "INSERT INTO t VALUES (1) | NONE",
        "UPDATE settings SET x = 1 | NONE",
    })
    void recognisesWhatPinsAndWhatDoesNot(String sql, SqlEffect expected) {
        assertThat(SqlClassifier.classify(sql.replace("\\n", "\n"))).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({"''", "'   '", "'-- only a comment'", "'/* unterminated'"})
    void emptyTextsDoNothing(String sql) {
        assertThat(SqlClassifier.classify(sql)).isEqualTo(SqlEffect.NONE);
    }
}
