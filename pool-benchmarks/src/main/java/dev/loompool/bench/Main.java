package dev.loompool.bench;

import dev.loompool.testsupport.PgBouncer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Runs the benchmark suite: {@code java -jar pool-benchmarks.jar [quick|full] [--only P1,P3,P10] [--pools LOOMPOOL,HIKARI]
 * [--rounds N] [--out DIR] [--jfr]}. {@code --only} takes groups (P10, P10c) or scenarios (P10-oiv-off), in any case;
 * {@code --jfr} runs P1 with loompool's Flight Recorder events on, recorded into {@code DIR/jfr}, and so
 * do P10's and P10c's applications on loompool (one recording per trial, there too);
 * {@code --rounds} sets the timed scenarios' rounds (a noisy ratio near its target needs more than the mode's).
 * {@code --pools} narrows the timed scenarios to the pools named (loompool and HikariCP stay: the
 * verdicts compare them), for repeat runs of the ratios near a target.
 * Every comparison runs all pools in this one invocation; the timed scenarios alternate them round
 * by round. Exits 1 if a part failed with errors (a missed target is reported, not an error), and
 * in quick mode also if loompool opened connections in a measured window where HikariCP opened
 * none, and more in all ({@link Churn}: counts, so the smoke run can judge it; the full run's verdicts say it).
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        Mode mode = Arrays.asList(args).contains("full") ? Mode.FULL : Mode.QUICK;
        Set<String> only = new TreeSet<>(Set.of("P1", "P2", "P3", "P3W", "P4", "P5", "P6", "P7", "P7TX", "P8", "P9", "P10", "P10C"));
        Set<PoolKind> pools = java.util.EnumSet.allOf(PoolKind.class);
        int rounds = mode.rounds;
        Path out = mode == Mode.FULL ? Path.of("pool-benchmarks", "results") : Path.of("pool-benchmarks", "target", "bench-quick");
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals("--only")) {
                only = new TreeSet<>(Set.of(args[i + 1].toUpperCase().split(",")));
            } else if (args[i].equals("--pools")) {
                pools.clear();
                for (String name : args[i + 1].toUpperCase().split(",")) {
                    pools.add(PoolKind.valueOf(name));
                }
                pools.add(PoolKind.LOOMPOOL);
                pools.add(PoolKind.HIKARI);
            } else if (args[i].equals("--rounds")) {
                rounds = Integer.parseInt(args[i + 1]);
                if (rounds < 1) {
                    throw new IllegalArgumentException("--rounds must be 1 or more, was " + rounds);
                }
            } else if (args[i].equals("--out")) {
                out = Path.of(args[i + 1]);
            }
        }
        long start = System.nanoTime();
        Report report = new Report(mode, out);
        boolean failed = false;
        if (only.contains("P1")) {
            // --jfr: P1 with loompool's Flight Recorder events on (loompool.jfc beside the JDK's default), recorded into OUT/jfr
            jdk.jfr.Recording jfr = Arrays.asList(args).contains("--jfr") ? JmhRuns.recordEvents(mode, out.resolve("jfr")) : null;
            try {
                report.p1(JmhRuns.p1(mode, pools));
            } catch (Exception e) {
                failed = fail(report, "P1", e);
            } finally {
                if (jfr != null) {
                    jfr.close(); // written to its destination
                }
            }
        }
        if (only.contains("P6")) {
            try {
                report.p6(JmhRuns.p6(mode));
            } catch (Exception e) {
                failed = fail(report, "P6", e);
            }
        }
        boolean postgres = Postgres.reachable();
        if (postgres && only.contains("P5")) {
            P5Oltp.prepareTables();
        }
        Path jfr = Arrays.asList(args).contains("--jfr") ? out.resolve("jfr") : null;
        List<Scenario> scenarios = new ArrayList<>(List.of(new P2Fairness(), new P3SlowCall(), new P3wGeneratedKeys(), new P4Outage(),
                new P5Oltp(), new P7RealCycle(), new P7RealCycle(true), new P8ManyThreads(), new P9ManyInstances()));
        scenarios.addAll(P10RealApp.scenarios(mode, jfr));
        scenarios.addAll(P10cFewerConnections.scenarios(mode, jfr));
        for (Scenario s : scenarios) {
            if (!only.contains(s.group().toUpperCase()) && !only.contains(s.id().toUpperCase())) {
                continue;
            }
            boolean app = s instanceof P10RealApp || s instanceof P10cFewerConnections;
            String why = null;
            if ((s instanceof P3SlowCall || s instanceof P3wGeneratedKeys || s instanceof P5Oltp || s instanceof P7RealCycle
                    || s instanceof P8ManyThreads || s instanceof P9ManyInstances || app)
                    && !postgres) {
                why = "PostgreSQL not reachable at " + Postgres.URL;
            } else if (app && !java.nio.file.Files.isRegularFile(P10RealApp.jar())) {
                why = "no application jar at " + P10RealApp.jar().toAbsolutePath() + " (build bench-app, or -Dloompool.bench.app=PATH)";
            } else if (s instanceof P8ManyThreads && !Postgres.pgbenchFound()) {
                why = "no pgbench on the PATH (apt-get install postgresql-client)";
            } else if (s instanceof P9ManyInstances && PgBouncer.findBinary().isEmpty()) {
                why = "no pgbouncer on the PATH nor in /usr/sbin (apt-get install pgbouncer)";
            }
            if (why != null) {
                if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                    failed = fail(report, s.id(), new IllegalStateException(why));
                } else {
                    report.skipped(s.id(), why);
                }
                continue;
            }
            try {
                List<String> churn = new ArrayList<>();
                if (s instanceof SizedScenario sized) {
                    Map<SizedScenario.Contender, List<Trial>> trials = runAlternating(s, sized.contenders(), rounds,
                            SizedScenario.Contender::label, c -> sized.run(c, mode));
                    failed |= failures(s, trials, SizedScenario.Contender::label);
                    report.sized(sized, trials, Verdicts.ofSized(sized, trials));
                    for (SizedScenario.Contender c : sized.contenders()) {
                        churn.add(Churn.violation(sized, c, trials));
                    }
                } else {
                    List<PoolKind> chosen = s.pools().stream().filter(pools::contains).toList();
                    Map<PoolKind, List<Trial>> trials = runAlternating(s, chosen, rounds, p -> p.label, p -> s.run(p, mode));
                    failed |= failures(s, trials, p -> p.label);
                    report.timed(s, trials, Verdicts.of(s, trials));
                    churn.add(Churn.violation(s, trials));
                }
                for (String violation : churn) {
                    if (violation != null) {
                        System.out.println("CHURN " + (mode == Mode.QUICK ? "FAILED: " : "(a verdict, see results.md): ") + violation);
                        failed |= mode == Mode.QUICK;
                    }
                }
            } catch (Exception e) {
                failed = fail(report, s.id(), e);
            }
        }
        report.write();
        System.out.printf("%s mode finished in %.0f s%s%n", mode.name().toLowerCase(), (System.nanoTime() - start) / 1e9,
                failed ? ", WITH ERRORS" : ", every part completed without errors");
        System.exit(failed ? 1 : 0);
    }

    /** One trial of a scenario on one of its pools, or contenders. */
    @FunctionalInterface
    private interface TrialRun<K> {
        Trial run(K pool) throws Exception;
    }

    /**
     * Round r runs the pools (or a sized scenario's contenders) starting at the r-th, so that no
     * pool always goes first or last. The trials are kept in the order {@code pools} lists them.
     */
    private static <K> Map<K, List<Trial>> runAlternating(Scenario s, List<K> pools, int rounds, Function<K, String> label,
            TrialRun<K> trial) throws Exception {
        Map<K, List<Trial>> trials = new LinkedHashMap<>();
        pools.forEach(p -> trials.put(p, new ArrayList<>()));
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < pools.size(); i++) {
                K pool = pools.get((i + round) % pools.size());
                Trial t = trial.run(pool);
                trials.get(pool).add(t);
                System.out.printf("%s round %d %-11s %,10.0f req/s  p50 %8.2f ms  p99 %8.2f ms  max %8.2f ms  errors %d  "
                        + "conn opened/1k %s %s%n", s.id(), round + 1, label.apply(pool), t.perSecond(), t.millis(0.5),
                        t.millis(0.99), t.maxMillis(), t.errors, Churn.perThousand(List.of(t)), t.extra.isEmpty() ? "" : t.extra);
            }
        }
        return trials;
    }

    /** Whether any trial had errors that fail the run ({@link Scenario#failures}); each such trial is named. */
    private static <K> boolean failures(Scenario s, Map<K, List<Trial>> trials, Function<K, String> label) {
        boolean failed = false;
        for (Map.Entry<K, List<Trial>> e : trials.entrySet()) {
            for (Trial t : e.getValue()) {
                if (s.failures(t) > 0) {
                    System.out.println(s.id() + " " + label.apply(e.getKey()) + ": " + t.errors + " errors (" + t.acquireFailures
                            + " of them acquire failures), first: " + t.firstError);
                    failed = true;
                }
            }
        }
        return failed;
    }

    private static boolean fail(Report report, String id, Exception e) {
        System.out.println(id + " FAILED: " + e);
        e.printStackTrace(System.out);
        report.failed(id, e);
        return true;
    }
}
