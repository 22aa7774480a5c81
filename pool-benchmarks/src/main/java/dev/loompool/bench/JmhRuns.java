package dev.loompool.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.openjdk.jmh.util.ListStatistics;

/** P1 (throughput at 1, 2 and 8 threads) and P6 (bytes allocated per operation) through JMH. */
final class JmhRuns {

    static final int[] THREADS = {1, 2, 8};

    /** {@code --jfr}: the JVM option that records loompool's events (loompool.jfc) in each fork; null: none. */
    private static String recording;

    private JmhRuns() {
    }

    /**
     * Runs the forks under a Flight Recorder recording of the JDK's default settings and loompool.jfc
     * (taken from pool-core's jar, as an operator would), written into {@code dir}: P1 with the
     * events on. The quick mode does not fork: it records in this JVM instead.
     */
    static jdk.jfr.Recording recordEvents(Mode mode, java.nio.file.Path dir) throws java.io.IOException, java.text.ParseException {
        java.nio.file.Path jfc = loompoolJfc(dir);
        if (mode.jmhFork) {
            recording = "-XX:StartFlightRecording:settings=default,settings=" + jfc.toAbsolutePath() + ",filename="
                    + dir.toAbsolutePath() + "/"; // a directory: each fork writes a file of its own there
            return null;
        }
        Map<String, String> settings = new java.util.HashMap<>(jdk.jfr.Configuration.getConfiguration("default").getSettings());
        settings.putAll(jdk.jfr.Configuration.create(jfc).getSettings());
        jdk.jfr.Recording r = new jdk.jfr.Recording(settings);
        r.setDestination(dir.resolve("p1-quick.jfr"));
        r.start();
        return r;
    }

    /** loompool.jfc, taken from pool-core's jar as an operator would, copied into {@code dir} (made if missing): its path. */
    static java.nio.file.Path loompoolJfc(java.nio.file.Path dir) throws java.io.IOException {
        java.nio.file.Files.createDirectories(dir);
        java.nio.file.Path jfc = dir.resolve("loompool.jfc");
        try (var in = JmhRuns.class.getResourceAsStream("/dev/loompool/loompool.jfc")) {
            java.nio.file.Files.copy(java.util.Objects.requireNonNull(in, "loompool.jfc is not in pool-core's jar"), jfc,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        return jfc;
    }

    private static ChainedOptionsBuilder options(Mode mode, int threads) {
        return new OptionsBuilder()
                .include(P1Benchmark.class.getName())
                .threads(threads)
                .forks(mode.jmhFork ? 1 : 0)
                .warmupIterations(mode.jmhWarmups)
                .warmupTime(TimeValue.milliseconds(mode.jmhIterationMillis))
                .measurementIterations(mode.jmhIterations)
                .measurementTime(TimeValue.milliseconds(mode.jmhIterationMillis))
                .jvmArgsAppend(recording == null ? new String[] {"-Xms1g", "-Xmx1g"} : new String[] {"-Xms1g", "-Xmx1g", recording})
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT);
    }

    /**
     * ops/ms and its error (99.9 % confidence half-width), per pool and thread count. The host is
     * shared and its speed drifts by the minute, so each pool runs in its own fork, the pools take
     * turns, the order flips every round, and each score pools the iterations of all its rounds.
     */
    static Map<PoolKind, double[][]> p1(Mode mode, java.util.Set<PoolKind> pools) throws RunnerException {
        Map<PoolKind, double[][]> scores = new EnumMap<>(PoolKind.class);
        for (int t = 0; t < THREADS.length; t++) {
            Map<PoolKind, ListStatistics> iterations = new EnumMap<>(PoolKind.class);
            for (int round = 0; round < mode.jmhRounds; round++) {
                List<PoolKind> order = new ArrayList<>(pools);
                if (round % 2 == 1) {
                    Collections.reverse(order);
                }
                for (PoolKind pool : order) {
                    var options = options(mode, THREADS[t]).param("pool", pool.name()).build();
                    for (RunResult r : new Runner(options).run()) {
                        ListStatistics stats = iterations.computeIfAbsent(pool, p -> new ListStatistics());
                        r.getBenchmarkResults().forEach(b -> b.getIterationResults()
                                .forEach(i -> stats.addValue(i.getPrimaryResult().getScore())));
                    }
                }
            }
            for (Map.Entry<PoolKind, ListStatistics> e : iterations.entrySet()) {
                ListStatistics stats = e.getValue();
                scores.computeIfAbsent(e.getKey(), p -> new double[THREADS.length][])[t] =
                        new double[] {stats.getMean(), stats.getN() > 1 ? stats.getMeanErrorAt(0.999) : Double.NaN};
                System.out.printf("P1 %-8s %d thread(s): %,.0f ops/ms over %d iterations%n", e.getKey().label,
                        THREADS[t], stats.getMean(), stats.getN());
            }
        }
        return scores;
    }

    /** Bytes allocated per getConnection-to-close cycle, one thread. */
    static Map<PoolKind, Double> p6(Mode mode) throws RunnerException {
        Collection<RunResult> results = new Runner(options(mode, 1).addProfiler(GCProfiler.class).build()).run();
        Map<PoolKind, Double> bytes = new EnumMap<>(PoolKind.class);
        for (RunResult r : results) {
            PoolKind pool = PoolKind.valueOf(r.getParams().getParam("pool"));
            Result<?> norm = r.getSecondaryResults().entrySet().stream()
                    .filter(e -> e.getKey().endsWith("gc.alloc.rate.norm")).map(Map.Entry::getValue)
                    .findFirst().orElseThrow(() -> new IllegalStateException("no gc.alloc.rate.norm from JMH"));
            bytes.put(pool, norm.getScore());
            System.out.printf("P6 %-8s %.0f B/op%n", pool.label, norm.getScore());
        }
        return bytes;
    }
}
