package dev.loompool.bench;

import java.util.List;
import java.util.Map;

/** Each timed scenario's target, checked against what was measured; a miss says by how much. */
final class Verdicts {

    private Verdicts() {
    }

    /** The scenario's target, then its connection churn ({@link Churn}). */
    static String of(Scenario s, Map<PoolKind, List<Trial>> trials) {
        return target(s, trials) + "; " + Churn.verdict(s, trials);
    }

    private static String target(Scenario s, Map<PoolKind, List<Trial>> trials) {
        List<Trial> loomTrials = trials.get(PoolKind.LOOMPOOL);
        Trial loom = Report.median(loomTrials);
        double loomRate = Report.mean(loomTrials);
        double hikariRate = Report.mean(trials.get(PoolKind.HIKARI));
        double ratio = loomRate / hikariRate;
        switch (s.id()) {
            case "P2": {
                double spread = loom.maxMillis() / loom.millis(0.5);
                return Report.verdict(ratio >= 1 && spread <= 2, String.format(
                        "throughput %.2fx HikariCP's; max/p50 = %.2f (%.2f / %.2f ms)", ratio, spread, loom.maxMillis(),
                        loom.millis(0.5)));
            }
            case "P3":
                return Report.verdict(ratio >= 15 && loom.millis(0.99) <= 30, String.format(
                        "%.1fx HikariCP's requests/s; p99 %.2f ms", ratio, loom.millis(0.99)));
            case "P3w":
                return Report.verdict(ratio >= 15, String.format("%.1fx HikariCP's requests/s; p99 %.2f ms, HikariCP's %.2f ms",
                        ratio, loom.millis(0.99), Report.median(trials.get(PoolKind.HIKARI)).millis(0.99)));
            case "P4": {
                Object attempts = loom.extra.get("connect attempts");
                return Report.verdict(loom.millis(0.99) < 1, String.format(
                        "p99 failure latency %.3f ms; %s connect attempts over the whole outage run, with a 1 s open "
                                + "duration and 5 failures to open", loom.millis(0.99), attempts));
            }
            case "P5": {
                double ceiling = ((P5Oltp) s).ceiling();
                return Report.verdict(ratio >= 1 && loomRate / ceiling >= 0.97, String.format(
                        "%.2fx pgbench's C client (%,.0f tps; HikariCP %.2fx), %.2fx HikariCP's throughput", loomRate / ceiling,
                        ceiling, hikariRate / ceiling, ratio));
            }
            case "P7", "P7tx": {
                double loomFloor = loomTrials.stream().mapToDouble(t -> (Double) t.extra.get("x floor")).average().orElse(0);
                double hikariFloor = trials.get(PoolKind.HIKARI).stream().mapToDouble(t -> (Double) t.extra.get("x floor"))
                        .average().orElse(0);
                double floorP99 = (Double) loom.extra.get("floor p99 ms");
                return Report.verdict(loomFloor >= 0.97 && ratio >= 1 && loom.millis(0.99) <= 1.2 * floorP99, String.format(
                        "%.2fx the floor (HikariCP %.2fx), %.2fx HikariCP's requests/s; p99 %.3f ms, the floor's %.3f ms",
                        loomFloor, hikariFloor, ratio, loom.millis(0.99), floorP99));
            }
            case "P8": { // Latencies are of the requests that got a connection, as in P9.
                List<Trial> hikari = trials.get(PoolKind.HIKARI);
                double ceiling = ((P8ManyThreads) s).ceiling();
                double loomFloor = meanOf(loomTrials, "x floor");
                long loomPast = loomTrials.stream().mapToLong(t -> t.acquireFailures).sum();
                long hikariPast = hikari.stream().mapToLong(t -> t.acquireFailures).sum();
                return Report.verdict(loomFloor >= 0.95 && ratio >= 20 && loomPast == 0, String.format("%.2fx the "
                        + "hand-written floor (HikariCP %.3fx), %.1fx HikariCP's requests/s; %.2fx the pgbench ceiling "
                        + "(%,.0f req/s), HikariCP %.2fx; p99 %.2f ms; past the acquire timeout: loompool %,d, HikariCP %,d; "
                        + "heap per open handle %s B (%s open), HikariCP %s B (%s open)", loomFloor, meanOf(hikari, "x floor"),
                        ratio, loomRate / ceiling, ceiling, hikariRate / ceiling, loom.millis(0.99), loomPast, hikariPast,
                        loom.extra.get("heap B/handle"), loom.extra.get("open handles"),
                        Report.median(hikari).extra.get("heap B/handle"), Report.median(hikari).extra.get("open handles")));
            }
            case "P9": { // Latencies are of the requests that got a connection: say how many of HikariCP's did not.
                List<Trial> hikari = trials.get(PoolKind.HIKARI);
                long failed = hikari.stream().mapToLong(t -> t.acquireFailures).sum();
                long all = failed + hikari.stream().mapToLong(t -> t.requests).sum();
                return Report.verdict(ratio >= 1, String.format("%.2fx HikariCP's requests/s; p99 %.2f ms, HikariCP's %.2f ms "
                        + "over the requests that got a connection, while %,d more (%.2f %%) gave up after the acquire timeout",
                        ratio, loom.millis(0.99), Report.median(hikari).millis(0.99), failed, 100.0 * failed / all));
            }
            case "P10-oiv-off", "P10-oiv-on", "P10-slow": { // connects in the measured windows
                double need = s.id().equals("P10-slow") ? 3 : 1;
                // On the count, not on the rate per 1,000: a rate rounded to two places reads 0.0 for
                // one connect in 200,000 requests or more.
                long opened = Churn.opened(loomTrials);
                List<Trial> hikari = trials.get(PoolKind.HIKARI);
                return Report.verdict(ratio >= need && opened == 0, String.format("%.2fx HikariCP's requests/s; connections "
                        + "opened per 1,000 requests (count) in the measured windows: loompool %s, HikariCP %s; p99 %.2f ms, "
                        + "HikariCP's %.2f ms", ratio, Churn.perThousand(loomTrials), Churn.perThousand(hikari),
                        loom.millis(0.99), Report.median(hikari).millis(0.99)));
            }
            default:
                return Report.verdict(ratio >= 1, String.format("%.2fx HikariCP's throughput", ratio));
        }
    }

    /**
     * P10c's target (loompool at fewer connections than HikariCP), then each loompool contender's
     * churn ({@link Churn#violation(SizedScenario, SizedScenario.Contender, Map)}).
     */
    static String ofSized(SizedScenario s, Map<SizedScenario.Contender, List<Trial>> trials) {
        List<Trial> base = trials.get(s.baseline());
        double baseRate = Report.mean(base);
        double baseP99 = Report.median(base).millis(0.99);
        boolean met = true;
        boolean churned = false;
        StringBuilder detail = new StringBuilder();
        StringBuilder opened = new StringBuilder();
        for (SizedScenario.Contender c : s.contenders()) {
            List<Trial> list = trials.get(c);
            opened.append(opened.length() == 0 ? "" : ", ").append(c.label()).append(' ').append(Churn.perThousand(list));
            if (c.equals(s.baseline())) {
                continue;
            }
            double ratio = Report.mean(list) / baseRate;
            double p99 = Report.median(list).millis(0.99);
            if (c.size() <= P10cFewerConnections.FEWEST) {
                met &= ratio >= 1 && p99 <= baseP99;
            } else {
                met &= ratio >= P10cFewerConnections.FEWER_NEED;
            }
            // On the count, not on the rate per 1,000 (as P10's): a rounded rate reads 0.00 for one connect in many.
            met &= Churn.opened(list) == 0;
            churned |= Churn.violation(s, c, trials) != null;
            detail.append(String.format("%s %.2fx %s's requests/s, p99 %.2f ms; ", c.label(), ratio, s.baseline().label(), p99));
        }
        return Report.verdict(met, detail + String.format("%s's p99 %.2f ms; connections opened per 1,000 requests (count) in "
                + "the measured windows: %s", s.baseline().label(), baseP99, opened))
                + "; churn: " + Report.verdict(!churned, "none where " + s.baseline().label() + " opens none");
    }

    /** The mean over the rounds of a number each trial put in its extras. */
    private static double meanOf(List<Trial> trials, String key) {
        return trials.stream().mapToDouble(t -> ((Number) t.extra.get(key)).doubleValue()).average().orElse(Double.NaN);
    }
}
