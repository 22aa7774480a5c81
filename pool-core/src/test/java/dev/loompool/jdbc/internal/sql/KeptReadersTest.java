package dev.loompool.jdbc.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Which functions read a value the session keeps, from their source (issue 38, item 2): the
 * classifier's reading of a body and of the SQL its string literals hold, and of a body that calls
 * such a function, until none is added ({@link SqlFunctions#addKeptReaders}).
 */
class KeptReadersTest {

    private static Set<String> keptReaders(Map<String, String> sources) {
        Set<String> kept = new HashSet<>();
        SqlClassifier classifier = new SqlClassifier(SqlDialect.POSTGRES);
        classifier.useFunctions(SqlFunctions.postgres(new HashMap<>(), Set.of(), kept, Set.of()), 0);
        Map<String, List<String>> byName = new HashMap<>();
        sources.forEach((name, source) -> byName.put(name, List.of(source)));
        SqlFunctions.addKeptReaders(byName, kept, classifier);
        return kept;
    }

    @Test
    void aBodyThatReadsCurrvalOrLastvalReadsAKeptValue() {
        assertThat(keptReaders(Map.of(
                "sql_cur", "SELECT currval('s')",
                "sql_last", " select LASTVAL() ",
                "atomic", "BEGIN ATOMIC SELECT currval('s'::regclass) AS currval; END",
                "plpgsql", "DECLARE v bigint; BEGIN v := currval('s'); RETURN v; END",
                "plain", "SELECT 1",
                "a_column", "SELECT currval_total FROM t")))
                .containsExactlyInAnyOrder("sql_cur", "sql_last", "atomic", "plpgsql");
    }

    @Test
    void theSqlAnExecuteRunsFromALiteralIsReadToo() {
        assertThat(keptReaders(Map.of(
                "quoted", "DECLARE v bigint; BEGIN EXECUTE 'SELECT currval(''s'')' INTO v; RETURN v; END",
                "dollar", "BEGIN EXECUTE $q$SELECT lastval()$q$; END",
                "formatted", "BEGIN EXECUTE format('SELECT %s', 'currval(''s'')'); END",
                "a_word", "BEGIN RAISE NOTICE 'no currval here'; END")))
                .containsExactlyInAnyOrder("quoted", "dollar", "formatted");
    }

    @Test
    void aBodyThatLeftAValueBeforeReadingItReadsItsOwn() {
        assertThat(keptReaders(Map.of(
                "own", "BEGIN PERFORM nextval('s'); RETURN currval('s'); END",
                "insert_first", "INSERT INTO t (v) VALUES (1); SELECT lastval()",
                "reads_first", "SELECT currval('s'); SELECT nextval('s')")))
                .containsExactly("reads_first");
    }

    @Test
    void aFunctionThatCallsOneThatReadsAKeptValueReadsItToo() {
        assertThat(keptReaders(Map.of(
                "inner_f", "SELECT currval('s')",
                "middle_f", "BEGIN RETURN app.inner_f() + 1; END",
                "outer_f", "SELECT middle_f()",
                "unrelated", "SELECT other_f()")))
                .containsExactlyInAnyOrder("inner_f", "middle_f", "outer_f");
    }
}
