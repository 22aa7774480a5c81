package dev.loompool.bench.chaos;

import java.util.List;
import java.util.Locale;

/** The chaos suite's report: each pool's figures, its timeline, and the ratio of completed transfers. */
final class Summary {

    private static final int TIMELINE_LINES = 200;

    private final StringBuilder out = new StringBuilder();

    static String of(String cluster, ChaosSettings settings, long suiteMillis, List<ChaosRun.Result> results) {
        Summary s = new Summary();
        s.line("=== loompool chaos suite (issue 11) ===");
        s.line("cluster:  " + cluster);
        s.line("workload: " + settings);
        s.line("request bound: acquire timeout + one statement = " + settings.requestBound().toMillis() + " ms");
        for (ChaosRun.Result r : results) {
            s.pool(r);
        }
        if (results.size() == 2) {
            long loom = results.get(0).requests().completed();
            long hikari = results.get(1).requests().completed();
            s.line("");
            s.line(String.format(Locale.ROOT, "transfers completed: %s %,d vs %s %,d  ->  ratio %s/%s = %.2f (a figure, not asserted)",
                    results.get(0).label(), loom, results.get(1).label(), hikari, results.get(0).label(),
                    results.get(1).label(), hikari == 0 ? Double.NaN : (double) loom / hikari));
        }
        s.line(String.format(Locale.ROOT, "suite took %.1f s", suiteMillis / 1000.0));
        return s.out.toString();
    }

    private void pool(ChaosRun.Result r) {
        Requests q = r.requests();
        Watchers w = r.watchers();
        Timeline t = r.timeline();
        ChaosRun.Quiesce z = r.quiesce();
        line("");
        line("--- " + r.label() + (r.judged() ? "" : " (yardstick: figures only, invariants not asserted)") + " ---");
        line(String.format(Locale.ROOT, "transfers: %,d completed, %,d failed in %.1f s (%,.0f completed/s)",
                q.completed(), q.failed(), r.runMillis() / 1000.0, q.completed() * 1000.0 / Math.max(1, r.runMillis())));
        q.failures().forEach((kind, text) -> line("  failed, " + kind + ": " + text));
        line(String.format(Locale.ROOT, "longest request: %,d ms; over the bound: %,d", q.maxMillis(), q.overBound()));
        q.overBoundExamples().forEach(e -> line("  over the bound " + e));
        line("faults: " + r.kills() + " backends killed, " + t.serverDown().size() + " restart(s)"
                + (r.faultErrors().isEmpty() ? "" : "; fault ERRORS: " + r.faultErrors()));
        line("server down/up: " + (t.serverDown().isEmpty() ? "never down" : String.join(", ",
                t.serverDown().stream().map(d -> String.format(Locale.ROOT, "down %.3f s, up %.3f s (%,d ms)",
                        d.from() / 1000.0, d.to() / 1000.0, d.to() - d.from())).toList())));
        if (r.judged()) {
            List<Timeline.Event> moves = t.events(Timeline.Kind.BREAKER);
            line("breaker transitions: " + (moves.isEmpty() ? "none" : moves.size() + " (in the timeline below)"));
            line(String.format(Locale.ROOT, "breaker INACTIVE %.1f s of %.1f s, of which %.1f s while the server accepted"
                    + " connections; openings while it accepted connections: %d", t.breakerOpenMillis() / 1000.0,
                    r.runMillis() / 1000.0, t.breakerOpenWhileServerAcceptedMillis() / 1000.0,
                    t.openingsWhileServerAccepted().size()));
        }
        line(String.format(Locale.ROOT, "pool counts: %,d samples, largest total %d, inconsistent %d%s",
                w.countSamples.sum(), w.maxTotal.get(), w.countViolations.sum(), r.judged() ? "" : " (read one by one)"));
        w.countExamples.forEach(e -> line("  inconsistent " + e));
        line(String.format(Locale.ROOT, "backends: %,d samples (%,d while the server was unreachable), most %d, most above"
                + " the pool's total %d, persistent excess %d", w.backendSamples.sum(), w.backendUnavailable.sum(),
                w.maxBackends.get(), w.maxExcess.get(), w.backendViolations.sum()));
        w.backendExamples.forEach(e -> line("  excess " + e));
        line(String.format(Locale.ROOT, "sum of balances: %,d checks (%,d while unreachable), wrong %d; final %s",
                w.sumChecks.sum(), w.sumUnavailable.sum(), w.sumMismatches.sum(),
                z.finalSum() >= 0 ? String.format(Locale.ROOT, "%,d", z.finalSum()) : "UNREADABLE: " + z.finalSumError()));
        w.sumExamples.forEach(e -> line("  wrong sum " + e));
        line("after quiesce: " + z.counts() + (z.openHandles() >= 0 ? ", open handles " + z.openHandles() : "")
                + ", backends " + z.backends() + ", stuck workers " + r.stuckWorkers()
                + "; after close: backends " + z.backendsAfterClose());
        List<Timeline.Event> events = t.events();
        line("timeline (s since the start of this pool's run):");
        events.stream().limit(TIMELINE_LINES).forEach(e -> line("  " + e));
        if (events.size() > TIMELINE_LINES) {
            line("  … " + (events.size() - TIMELINE_LINES) + " more events");
        }
    }

    private void line(String text) {
        out.append(text).append('\n');
    }
}
