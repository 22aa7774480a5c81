package dev.loompool.bench;

import java.util.List;
import java.util.Map;

/**
 * Connection churn: the connections each pool opened in its measured windows (the steady state,
 * the warm-up excluded), per 1,000 requests. The rule is a count, not a timing, so it cannot fail
 * by chance: loompool must open none where HikariCP, under the same load, opened none. Scenarios
 * whose point is reconnecting ({@link Scenario#reconnects}) are reported, not judged.
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

    /** The sum over the rounds, or -1 if any round was not counted. */
    static long opened(List<Trial> trials) {
        long sum = 0;
        for (Trial t : trials) {
            if (t.connectionsOpened < 0) {
                return -1;
            }
            sum += t.connectionsOpened;
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
        long loom = opened(trials.get(PoolKind.LOOMPOOL));
        long hikari = opened(trials.get(PoolKind.HIKARI));
        if (loom > 0 && hikari == 0) {
            long requests = trials.get(PoolKind.LOOMPOOL).stream().mapToLong(t -> t.requests).sum();
            return String.format("%s: loompool opened %,d connection(s) in its measured windows (%.2f per 1,000 requests), "
                    + "where HikariCP opened none: churn in the steady state", s.id(), loom, loom * 1000.0 / requests);
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
        return "churn: " + Report.verdict(violation(s, trials) == null, "none where HikariCP opens none; " + counts);
    }
}
