package dev.loompool.jdbc.internal.sql;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Classifiers for tests without a server: PostgreSQL's with the function table of a real
 * PostgreSQL 15 catalog ({@code postgres-functions.tsv}), as a pool reads it at start.
 */
final class Classifiers {

    private static final SqlFunctions POSTGRES_CATALOG = SqlFunctions.postgres(rows(), Set.of(), Set.of());

    private Classifiers() {
    }

    static SqlClassifier of(SqlDialect dialect) {
        SqlClassifier c = new SqlClassifier(dialect);
        if (dialect == SqlDialect.POSTGRES) {
            c.useFunctions(POSTGRES_CATALOG, 0);
        }
        return c;
    }

    /** PostgreSQL's with the catalog and what a test adds: relations and operators that run volatile functions. */
    static SqlClassifier postgres(Set<String> volatileWords, Set<String> volatileOperators, String... volatileFunctions) {
        List<String[]> rows = rows();
        for (String f : volatileFunctions) {
            rows.add(new String[] {f, "t", "t"});
        }
        SqlClassifier c = new SqlClassifier(SqlDialect.POSTGRES);
        c.useFunctions(SqlFunctions.postgres(rows, volatileWords, volatileOperators), 0);
        return c;
    }

    /** A fresh table of the real catalog's functions, for a test to add to before use. */
    static SqlFunctions postgresFunctions() {
        return SqlFunctions.postgres(rows(), Set.of(), Set.of());
    }

    private static List<String[]> rows() {
        List<String[]> rows = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(
                Classifiers.class.getResourceAsStream("/postgres-functions.tsv"), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (!line.startsWith("#") && !line.isBlank()) {
                    rows.add(line.split("\t"));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }
}
