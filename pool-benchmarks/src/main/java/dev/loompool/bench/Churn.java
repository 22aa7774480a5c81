package dev.loompool.bench;

import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * Connection churn: the connections each pool opened in its measured windows (the steady state,
 * the warm-up excluded), per 1,000 requests. The rule is on counts, not timings: loompool fails it
 * if it opened connections in its windows where HikariCP, under the same load, opened none in its
 * own, and loompool opened more connections in all than HikariCP did, so that some of them
 * replaced connections it had closed. A pool that only grows late (its connections opened in the
 * window, but no more of them than HikariCP opened in its warm-up: P9's pools start empty, and
 * loompool's first connect reads the catalog) is said so, not failed. Scenarios whose point is
 * reconnecting ({@link Scenario#reconnects}) are reported, not judged.
 */
final class Churn {

    private Churn() {
    }

    /** Over every round: connections opened per 1,000 requests and the count, as "0.12 (35)"; "-" when not counted. */
    static String perThousand(List<Trial> trials) {
        long opened = opened(trials);
        if (opened < 0) {
            return "-";
        }
        long requests = trials.stream().mapToLong(t -> t.requests).sum();
        return requests == 0 ? String.format("no requests (%,d)", opened) // P4: HikariCP's requests all outlast the window
                : String.format("%.2f (%,d)", opened * 1000.0 / requests, opened);
    }

    /** The sum over the rounds in the measured windows, or -1 if any round was not counted. */
    static long opened(List<Trial> trials) {
        return sum(trials, t -> t.connectionsOpened);
    }

    /** The sum over the rounds from each pool's start to its window's end, or -1 if any round was not counted. */
    static long openedTotal(List<Trial> trials) {
        return sum(trials, t -> t.connectionsOpenedTotal);
    }

    private static long sum(List<Trial> trials, ToLongFunction<Trial> count) {
        long sum = 0;
        for (Trial t : trials) {
            long c = count.applyAsLong(t);
            if (c < 0) {
                return -1;
            }
            sum += c;
        }
        return sum;
    }

    /**
     * Why the rule fails for this scenario's trials, naming the scenario and the counts; null if it
     * holds, or is not judged (a reconnecting scenario, a pool not counted).
     */
    static String violation(Scenario s, Map<PoolKind, List<Trial>> trials) {
        if (s.reconnects() || !trials.containsKey(PoolKind.LOOMPOOL) || !trials.containsKey(PoolKind.HIKARI)) {
            return null;
        }
        List<Trial> loomTrials = trials.get(PoolKind.LOOMPOOL);
        long loom = opened(loomTrials);
        long loomTotal = openedTotal(loomTrials);
        long hikariTotal = openedTotal(trials.get(PoolKind.HIKARI));
        if (loom > 0 && opened(trials.get(PoolKind.HIKARI)) == 0 && loomTotal > hikariTotal) {
            long requests = loomTrials.stream().mapToLong(t -> t.requests).sum();
            return String.format("%s: loompool opened %,d connection(s) in its measured windows (%.2f per 1,000 requests), "
                    + "where HikariCP opened none, and %,d in all to HikariCP's %,d: churn in the steady state", s.id(), loom,
                    loom * 1000.0 / requests, loomTotal, hikariTotal);
        }
        return null;
    }

    /**
     * The rule for a loompool contender of a {@link SizedScenario}, given fewer connections than the
     * baseline: it fails if the contender opened connections in its windows where the baseline
     * opened none, and more in all than its own size in each round (some replaced connections it
     * had closed; opening more than the baseline in all, the rule above, cannot tell at a smaller size).
     */
    static String violation(SizedScenario s, SizedScenario.Contender loom, Map<SizedScenario.Contender, List<Trial>> trials) {
        List<Trial> loomTrials = trials.get(loom);
        List<Trial> base = trials.get(s.baseline());
        if (loom.pool() != PoolKind.LOOMPOOL || loomTrials == null || base == null) {
            return null;
        }
        long opened = opened(loomTrials);
        long total = openedTotal(loomTrials);
        long size = (long) loom.size() * loomTrials.size();
        if (opened > 0 && opened(base) == 0 && total > size) {
            long requests = loomTrials.stream().mapToLong(t -> t.requests).sum();
            return String.format("%s: %s opened %,d connection(s) in its measured windows (%.2f per 1,000 requests), where %s "
                    + "opened none, and %,d in all over %d round(s) of %d connections: churn in the steady state", s.id(),
                    loom.label(), opened, opened * 1000.0 / requests, s.baseline().label(), total, loomTrials.size(), loom.size());
        }
        return null;
    }

    /** The churn part of a scenario's verdict. */
    static String verdict(Scenario s, Map<PoolKind, List<Trial>> trials) {
        String counts = String.format("conn opened/1k in the measured windows: loompool %s, HikariCP %s",
                perThousand(trials.get(PoolKind.LOOMPOOL)), perThousand(trials.get(PoolKind.HIKARI)));
        if (s.reconnects()) {
            return "churn reported, not judged (reconnecting is the point): " + counts;
        }
        long loom = opened(trials.get(PoolKind.LOOMPOOL));
        if (violation(s, trials) == null && loom > 0 && opened(trials.get(PoolKind.HIKARI)) == 0) {
            counts += String.format("; loompool's are late growth, not churn: %,d opened in all, HikariCP %,d",
                    openedTotal(trials.get(PoolKind.LOOMPOOL)), openedTotal(trials.get(PoolKind.HIKARI)));
        }
        return "churn: " + Report.verdict(violation(s, trials) == null, "none where HikariCP opens none; " + counts);
    }
}
