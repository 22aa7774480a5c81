package dev.loompool.jdbc.internal.sql;

import dev.loompool.jdbc.internal.driver.FunctionCatalog;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the classifier says of the SQL real applications send (issue 27: "how often the allowlist
 * keeps a connection that the old classifier released … for ordinary queries it must be never").
 * The texts are in {@code src/test/resources/sql-corpus/}, captured as the pool received them
 * (each file's header says how and from what); every ordinary query must be classified neutral, and
 * every text that truly changes the session must be kept. DDL is only counted and listed: the
 * allowlist keeps it by design, and it runs at start-up.
 */
class SqlCorpusTest {

    /** What a text of the corpus is, as the line {@code -- @@ <kind>} before it says. */
    enum Kind {
        /** An ordinary query or DML statement: must let its connection go. */
        QUERY,
        /** DDL and maintenance run at start-up (schema scripts, Hibernate's schema export): counted. */
        SCHEMA,
        /** Changes the session for real: must be kept. */
        SESSION
    }

    record Text(Kind kind, String sql) {
    }

    private static final String MARK = "-- @@ ";

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
        "sample-app-postgres", "sample-app-h2", "jpa-test-app-postgres",
        "petclinic-postgres", "petclinic-h2", "petclinic-mysql", "benchmarks-postgres", "benchmarks-stub",
    })
    void everyOrdinaryQueryLetsItsConnectionGo(String source) throws Exception {
        List<Text> texts = read(source);
        SqlDialect dialect = dialectOf(source);
        SqlClassifier classifier = classifierFor(dialect);
        List<Text> kept = new ArrayList<>();
        for (Text t : texts) {
            if (classifier.classify(t.sql()).session) {
                kept.add(t);
            }
        }
        System.out.printf("sql-corpus %s (%s): %d texts, %d neutral, %d kept%n",
                source, dialect, texts.size(), texts.size() - kept.size(), kept.size());
        for (Text t : kept) {
            System.out.printf("  kept [%s] %s%n", t.kind().name().toLowerCase(Locale.ROOT), t.sql().replace("\n", "\\n"));
        }
        assertThat(texts).as("texts of %s", source).isNotEmpty();
        assertThat(kept).as("ordinary queries of %s that the classifier keeps", source)
                .noneMatch(t -> t.kind() == Kind.QUERY);
        assertThat(texts).as("session-changing texts of %s that the classifier lets go", source)
                .filteredOn(t -> t.kind() == Kind.SESSION).allMatch(kept::contains);
    }

    /** The classifier as a pool on that database would have it. */
    private static SqlClassifier classifierFor(SqlDialect dialect) throws SQLException {
        SqlClassifier classifier = new SqlClassifier(dialect);
        if (dialect == SqlDialect.POSTGRES) {
            // PostgreSQL's function table from the real server, as the pool reads it once per pool
            try (Connection c = TestDatabase.POSTGRES.admin()) {
                classifier.useFunctions(FunctionCatalog.read(c, dialect), System.nanoTime());
            }
        }
        return classifier;
    }

    /** By the file's name: {@code <source>-<dialect>.sql}; H2 and the stub driver read as OTHER. */
    private static SqlDialect dialectOf(String source) {
        if (source.endsWith("-postgres")) {
            return SqlDialect.POSTGRES;
        }
        if (source.endsWith("-mysql") || source.endsWith("-mariadb")) {
            return SqlDialect.MYSQL;
        }
        return SqlDialect.OTHER;
    }

    /**
     * The records of one corpus file: each starts with a line {@code -- @@ <kind>} and its text runs
     * to the line before the next such line (the newline before that line is not part of it). What
     * stands before the first record is the header.
     */
    static List<Text> read(String source) throws IOException {
        String file = "/sql-corpus/" + source + ".sql";
        String all;
        try (InputStream in = SqlCorpusTest.class.getResourceAsStream(file)) {
            assertThat(in).as(file).isNotNull();
            all = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<Text> texts = new ArrayList<>();
        for (int at = all.startsWith(MARK) ? 0 : nextRecord(all, 0); at >= 0; ) {
            int lineEnd = all.indexOf('\n', at);
            Kind kind = Kind.valueOf(all.substring(at + MARK.length(), lineEnd).trim().toUpperCase(Locale.ROOT));
            int next = nextRecord(all, lineEnd);
            int end = next >= 0 ? next - 1 : all.endsWith("\n") ? all.length() - 1 : all.length();
            texts.add(new Text(kind, all.substring(lineEnd + 1, end)));
            at = next;
        }
        return texts;
    }

    /** Where the next record's {@code -- @@} line starts, after {@code from}; -1 if none. */
    private static int nextRecord(String all, int from) {
        int i = all.indexOf("\n" + MARK, from);
        return i < 0 ? -1 : i + 1;
    }
}
