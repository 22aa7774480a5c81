package dev.loompool.bench.chaos;

import java.util.List;
import java.util.Locale;

/** The chaos suite's report: each pool's figures, its timeline, and the ratio of completed transfers. */
final class Summary {

    private static final int TIMELINE_LINES = 200;

    private final StringBuilder out = new StringBuilder();

    /** The report on both pools' rounds, in the order they ran (the first pool's first, then the rest). */
    static String of(String cluster, ChaosSettings settings, long suiteMillis, List<ChaosRun.Result> pool,
            List<ChaosRun.Result> yardstick) {
        Summary s = new Summary();
        s.line("=== loompool chaos suite (issue 11) ===");
        s.line("cluster:  %s", cluster);
        s.line("workload: %s", settings);
        s.line("request bound: acquire timeout + one statement = %,d ms", settings.requestBound().toMillis());
        s.pool(pool.get(0));
        yardstick.forEach(s::pool);
        pool.subList(1, pool.size()).forEach(s::pool);
        s.line("");
        long done = completed(pool);
        long reference = completed(yardstick);
        s.line("transfers completed, rounds summed: loompool %,d (%s) vs HikariCP %,d (%s)  ->  ratio %.2f",
                done, rounds(pool), reference, rounds(yardstick),
                reference == 0 ? Double.NaN : (double) done / reference);
        s.line("suite took %.1f s", suiteMillis / 1000.0);
        return s.out.toString();
    }

    private static long completed(List<ChaosRun.Result> rounds) {
        return rounds.stream().mapToLong(r -> r.requests().completed()).sum();
    }

    private static String rounds(List<ChaosRun.Result> rounds) {
        return String.join(" + ", rounds.stream()
                .map(r -> String.format(Locale.ROOT, "%,d", r.requests().completed())).toList());
    }

    private void pool(ChaosRun.Result r) {
        Requests q = r.requests();
        Watchers w = r.watchers();
        Timeline t = r.timeline();
        ChaosRun.Quiesce z = r.quiesce();
        double seconds = r.runMillis() / 1000.0;
        line("");
        line("--- %s%s ---", r.label(), r.judged() ? "" : " (yardstick: figures only, invariants not asserted)");
        line("transfers: %,d completed, %,d failed in %.1f s (%,.0f completed/s)",
                q.completed(), q.failed(), seconds, q.completed() / Math.max(0.001, seconds));
        q.failures().forEach((kind, text) -> line("  failed, %s: %s", kind, text));
        line("longest request: %,d ms; over the bound: %,d", q.maxMillis(), q.overBound());
        q.overBoundExamples().forEach(e -> line("  over the bound %s", e));
        line("faults: %d backends killed, %d restart(s)%s", r.kills(), t.serverDown().size(),
                r.faultErrors().isEmpty() ? "" : "; fault ERRORS: " + r.faultErrors());
        line("server down/up: %s", t.serverDown().isEmpty() ? "never down" : String.join(", ", t.serverDown().stream()
                .map(d -> String.format(Locale.ROOT, "down %.3f s, up %.3f s (%,d ms)",
                        d.from() / 1000.0, d.to() / 1000.0, d.to() - d.from()))
                .toList()));
        if (r.judged()) {
            int moves = t.events(Timeline.Kind.BREAKER).size();
            line("breaker transitions: %s", moves == 0 ? "none" : moves + " (in the timeline below)");
            line("breaker INACTIVE %.1f s of %.1f s, of which %.1f s while the server accepted connections;"
                    + " openings while it accepted connections: %d", t.breakerOpenMillis() / 1000.0, seconds,
                    t.breakerOpenWhileServerAcceptedMillis() / 1000.0, t.openingsWhileServerAccepted().size());
        }
        line("pool counts: %,d samples, largest total %d, inconsistent %d%s", w.countSamples.sum(),
                w.maxTotal.get(), w.countViolations.sum(), r.judged() ? "" : " (read one by one)");
        w.countExamples.forEach(e -> line("  inconsistent %s", e));
        line("backends: %,d samples (%,d while the server was unreachable), most %d, most above the pool's total %d"
                + " (killed backends left out), lasting excess %d", w.backendSamples.sum(), w.backendUnavailable.sum(),
                w.maxBackends.get(), w.maxExcess.get(), w.backendViolations.sum());
        w.backendExamples.forEach(e -> line("  excess %s", e));
        line("sum of balances: %,d checks (%,d while unreachable), wrong %d; final %s", w.sumChecks.sum(),
                w.sumUnavailable.sum(), w.sumMismatches.sum(), z.finalSum() >= 0
                        ? String.format(Locale.ROOT, "%,d", z.finalSum()) : "UNREADABLE: " + z.finalSumError());
        w.sumExamples.forEach(e -> line("  wrong sum %s", e));
        line("after quiesce: %s%s, backends %d, stuck workers %d; after close: backends %d", z.counts(),
                z.openHandles() >= 0 ? ", open handles " + z.openHandles() : "", z.backends(), r.stuckWorkers(),
                z.backendsAfterClose());
        List<Timeline.Event> events = t.events();
        line("timeline (s since the start of this pool's run):");
        events.stream().limit(TIMELINE_LINES).forEach(e -> line("  %s", e));
        if (events.size() > TIMELINE_LINES) {
            line("  … %d more events", events.size() - TIMELINE_LINES);
        }
    }

    private void line(String format, Object... args) {
        out.append(args.length == 0 ? format : String.format(Locale.ROOT, format, args)).append('\n');
    }
}
