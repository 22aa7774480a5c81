package dev.loompool.jdbc.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The differential fuzzer (DESIGN.md §6, issue 27): a text the classifier calls neutral must leave
 * the real server's session as it found it. Texts come from {@link FuzzTexts}; each one the
 * classifier calls neutral runs on a fresh plain connection, and the session fingerprint
 * ({@link SessionFingerprint}) after it must equal the one before, with no transaction open.
 * A failing text is shrunk (pieces dropped while it still fails) and reported with what changed;
 * each one found becomes a named case in {@link FuzzerCounterexamplesTest}.
 *
 * <p>In CI: a fixed seed and a few hundred texts per target. A long run:
 * <pre>
 * ./mvnw -q -B -ntp -pl pool-core -am test -Dtest=ClassifierFuzzTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dloompool.fuzz.tries=20000 -Dloompool.fuzz.seed=$RANDOM
 * </pre>
 * ({@code -Dloompool.fuzz.targets=MARIADB} runs one target only: one such command per target runs
 * them side by side.)
 * {@code loompool.fuzz.tries} counts texts run on the server (those classified neutral); the
 * findings, shrunk, are also written to {@code pool-core/target/fuzz/<target>.txt}.
 */
class ClassifierFuzzTest {

    private static final int TRIES = Integer.getInteger("loompool.fuzz.tries", 300);
    private static final long SEED = Long.getLong("loompool.fuzz.seed", 27L);
    /** The targets to run, by name (comma-separated), so that a long run can use one JVM per target. */
    private static final String TARGETS = System.getProperty("loompool.fuzz.targets", "");
    /** Findings shrunk and listed, at most; past that they are only counted (a shrink costs dozens of runs). */
    private static final int SHRUNK_AT_MOST = Integer.getInteger("loompool.fuzz.shrunk", 25);

    @ParameterizedTest
    @EnumSource(FuzzTarget.class)
    void aTextClassifiedNeutralLeavesTheServersSessionAsItFoundIt(FuzzTarget target) throws Exception {
        Assumptions.assumeTrue(TARGETS.isBlank() || List.of(TARGETS.split(",")).contains(target.name()),
                "loompool.fuzz.targets leaves " + target + " out");
        target.prepare();
        SqlClassifier classifier = target.classifier();
        FuzzTexts texts = new FuzzTexts(target.dialect);
        SplittableRandom seeds = new SplittableRandom(SEED ^ target.ordinal());
        Map<String, ServerRun> found = new LinkedHashMap<>();
        int generated = 0;
        int run = 0;
        int failures = 0;
        int unconfirmed = 0;
        while (run < TRIES && generated < TRIES * 100) {
            List<String> parts = texts.generate(new SplittableRandom(seeds.nextLong()));
            generated++;
            if (!neutral(classifier, String.join("", parts))) {
                continue; // the property says nothing of a text that pins
            }
            run++;
            ServerRun outcome = ServerRun.of(target, String.join("", parts));
            if (outcome.changed()) {
                failures++;
                String text = String.join("", parts);
                if (found.keySet().stream().anyMatch(text::contains)) {
                    continue; // holds a finding already shrunk: the same again, most likely
                }
                if (found.size() < SHRUNK_AT_MOST) {
                    String sql = String.join("", shrink(target, classifier, parts));
                    ServerRun again = ServerRun.of(target, sql);
                    if (again.changed()) { // what does not change the session twice is the server's noise, not a finding
                        found.putIfAbsent(sql, again);
                    } else {
                        unconfirmed++;
                    }
                }
            }
        }
        String report = report(target, generated, run, failures, unconfirmed, found);
        System.out.println(report);
        assertThat(found).as(report).isEmpty();
    }

    /** The pool lets the connection go after it: no session state, and no transaction left open. */
    static boolean neutral(SqlClassifier classifier, String sql) {
        SqlEffect e = classifier.classifyText(sql);
        return !e.session && e.tx != SqlEffect.Tx.OPEN;
    }

    /**
     * Drops runs of one to four pieces while the text is still classified neutral and still
     * changes the session (a statement and the semicolon after it go together: MariaDB refuses a
     * text that starts with an empty statement).
     */
    private static List<String> shrink(FuzzTarget target, SqlClassifier classifier, List<String> parts)
            throws SQLException {
        List<String> best = new ArrayList<>(parts);
        for (int run = 4; run >= 1; run--) {
            boolean smaller = true;
            while (smaller) {
                smaller = false;
                for (int i = 0; i + run <= best.size(); i++) {
                    List<String> candidate = new ArrayList<>(best.subList(0, i));
                    candidate.addAll(best.subList(i + run, best.size()));
                    String sql = String.join("", candidate);
                    if (!sql.isBlank() && neutral(classifier, sql) && ServerRun.of(target, sql).changed()) {
                        best = candidate;
                        smaller = true;
                        i--;
                    }
                }
            }
        }
        return best;
    }

    private static String report(FuzzTarget target, int generated, int run, int failures, int unconfirmed,
            Map<String, ServerRun> found) throws IOException {
        StringBuilder s = new StringBuilder();
        s.append(target).append(": seed ").append(SEED).append(", ").append(generated).append(" texts generated, ")
                .append(run).append(" classified neutral and run on the server, ").append(failures)
                .append(" changed the session (").append(unconfirmed).append(" of them not again once shrunk); ")
                .append(found.size()).append(" distinct after shrinking:\n");
        for (Map.Entry<String, ServerRun> f : found.entrySet()) {
            s.append("  \"").append(javaString(f.getKey())).append("\"\n");
            for (String change : f.getValue().changes()) {
                s.append("      ").append(change).append('\n');
            }
            if (f.getValue().error() != null) {
                s.append("      (server error: ").append(f.getValue().error().replace('\n', ' ')).append(")\n");
            }
        }
        Path dir = Path.of("target", "fuzz");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(target + ".txt"), s);
        return s.toString();
    }

    /** The text as a Java string literal's body, to paste into {@link FuzzerCounterexamplesTest}. */
    static String javaString(String sql) {
        StringBuilder s = new StringBuilder();
        for (char c : sql.toCharArray()) {
            switch (c) {
                case '\n' -> s.append("\\n");
                case '\r' -> s.append("\\r");
                case '\t' -> s.append("\\t");
                case '"' -> s.append("\\\"");
                case '\\' -> s.append("\\\\");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        s.append(String.format("\\u%04x", (int) c));
                    } else {
                        s.append(c);
                    }
                }
            }
        }
        return s.toString();
    }
}
