package dev.loompool.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every text the differential fuzzer ({@link ClassifierFuzzTest}) has found, shrunk, kept by name:
 * each changes the session of a fresh plain connection on the real server (checked here, so that a
 * case stays a real one), so the classifier must not call it neutral. The comment on each case says
 * what it leaves on the session.
 */
class FuzzerCounterexamplesTest {

    record Case(String name, FuzzTarget target, String sql) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Case> cases() {
        return List.of(
                // PostgreSQL: functions that run SQL text given as a string
                new Case("query_to_xml runs set_config", FuzzTarget.POSTGRES_SIMPLE,
                        "VALUES (query_to_xml('SELECT set_config(''fz.y'', ''xml'', false)', true, true, ''))"),
                new Case("query_to_xml takes an advisory lock", FuzzTarget.POSTGRES_SIMPLE,
                        "INSERT INTO loompool_fuzz (id, v) SELECT 3, query_to_xml('SELECT pg_advisory_lock(774414)', true, true, '')"),
                new Case("query_to_xml_and_xmlschema runs set_config", FuzzTarget.POSTGRES_SIMPLE,
                        "WITH w AS (SELECT query_to_xml_and_xmlschema('SELECT set_config(''fz.z'', ''xs'', false)', true, true, '') AS a) SELECT * FROM w"),
                new Case("ts_stat runs set_config", FuzzTarget.POSTGRES_EXTENDED,
                        "SELECT (SELECT count(*) FROM ts_stat('SELECT to_tsvector(set_config(''fz.z'', ''ts'', false))'))"),
                // PostgreSQL: SET LOCAL (and set_config(…, true)) of a custom name outlives its
                // transaction as an empty placeholder: current_setting('fz.y', true) is '' after it, NULL before
                new Case("SET LOCAL leaves a custom placeholder", FuzzTarget.POSTGRES_EXTENDED,
                        "SET LOCAL fz.y = 'local'"),
                // MariaDB: compound statements run as one top-level statement
                new Case("IF block sets a user variable", FuzzTarget.MARIADB, "IF 1 THEN SET @fz_a = 6; END IF"),
                new Case("WHILE block sets a user variable", FuzzTarget.MARIADB,
                        "WHILE @fz_n IS NULL DO SET @fz_n = 1; END WHILE"),
                new Case("CASE block sets a user variable", FuzzTarget.MARIADB, "CASE WHEN 1 THEN SET @fz_a = 7; END CASE"),
                new Case("FOR block sets a user variable", FuzzTarget.MARIADB, "FOR fz_i IN 1..1 DO SET @fz_a = 10; END FOR"),
                new Case("REPEAT block sets a user variable", FuzzTarget.MARIADB, "REPEAT SET @fz_a = 8; UNTIL 1 END REPEAT"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void isNotClassifiedNeutral(Case c) throws Exception {
        assertThat(ClassifierFuzzTest.neutral(c.target().classifier(), c.sql())).as(c.sql()).isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void changesTheSessionOfAFreshConnection(Case c) throws Exception {
        c.target().prepare();
        assertThat(ServerRun.of(c.target(), c.sql()).changed()).as(c.sql()).isTrue();
    }
}
