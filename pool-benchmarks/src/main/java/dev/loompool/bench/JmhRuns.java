package dev.loompool.bench;

import java.util.Collection;
import java.util.EnumMap;
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

/** P1 (throughput at 1, 2 and 8 threads) and P6 (bytes allocated per operation) through JMH. */
final class JmhRuns {

    static final int[] THREADS = {1, 2, 8};

    private JmhRuns() {
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
                .jvmArgsAppend("-Xms1g", "-Xmx1g")
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT);
    }

    /** ops/ms and its error, per pool and thread count. */
    static Map<PoolKind, double[][]> p1(Mode mode) throws RunnerException {
        Map<PoolKind, double[][]> scores = new EnumMap<>(PoolKind.class);
        for (int t = 0; t < THREADS.length; t++) {
            for (RunResult r : new Runner(options(mode, THREADS[t]).build()).run()) {
                PoolKind pool = PoolKind.valueOf(r.getParams().getParam("pool"));
                Result<?> primary = r.getPrimaryResult();
                scores.computeIfAbsent(pool, p -> new double[THREADS.length][])[t] =
                        new double[] {primary.getScore(), primary.getScoreError()};
                System.out.printf("P1 %-8s %d thread(s): %,.0f ops/ms%n", pool.label, THREADS[t], primary.getScore());
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
