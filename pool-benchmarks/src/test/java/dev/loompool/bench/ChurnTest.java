package dev.loompool.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The churn rule the quick run fails on (see {@link Churn}): counts, so every case is exact. */
class ChurnTest {

    private static final Scenario STEADY = new P3SlowCall();
    private static final Scenario OUTAGE = new P4Outage();

    /** A pool of 10 opened up front: its total is 10 plus what it opened in the window. */
    private static Trial trial(PoolKind pool, long requests, long opened) {
        return new Trial(pool, requests, 0, 0, null, 1.0, new long[0], opened, opened < 0 ? -1 : 10 + opened);
    }

    private static Map<PoolKind, List<Trial>> trials(long... loomThenHikariOpened) {
        Map<PoolKind, List<Trial>> m = new EnumMap<>(PoolKind.class);
        m.put(PoolKind.LOOMPOOL, List.of(trial(PoolKind.LOOMPOOL, 2_000, loomThenHikariOpened[0]),
                trial(PoolKind.LOOMPOOL, 2_000, loomThenHikariOpened[1])));
        m.put(PoolKind.HIKARI, List.of(trial(PoolKind.HIKARI, 1_000, loomThenHikariOpened[2]),
                trial(PoolKind.HIKARI, 1_000, loomThenHikariOpened[3])));
        m.put(PoolKind.DBCP2, List.of(trial(PoolKind.DBCP2, 1_000, 7)));
        return m;
    }

    @Test
    void loompoolOpeningWhereHikariOpensNoneFailsNamingScenarioAndCounts() {
        String why = Churn.violation(STEADY, trials(0, 3, 0, 0));
        assertNotNull(why);
        assertTrue(why.startsWith("P3: loompool opened 3 connection(s)"), why);
        assertTrue(why.contains("(0.75 per 1,000 requests), where HikariCP opened none, and 23 in all to HikariCP's 20"), why);
        assertTrue(Churn.verdict(STEADY, trials(0, 3, 0, 0)).startsWith("churn: **MISSED**"));
    }

    @Test
    void noChurnOrChurnHikariSharesHolds() {
        assertNull(Churn.violation(STEADY, trials(0, 0, 0, 0)));
        assertNull(Churn.violation(STEADY, trials(2, 0, 0, 1)), "HikariCP opened too: not judged as loompool's churn");
        assertTrue(Churn.verdict(STEADY, trials(0, 0, 0, 0)).startsWith("churn: **MET**"));
    }

    @Test
    void aPoolThatOnlyGrowsLateIsSaidSoNotFailed() {
        Map<PoolKind, List<Trial>> m = new EnumMap<>(PoolKind.class);
        // P9's way: pools that start empty; loompool's 64 come in the window, HikariCP's 64 in its warm-up.
        m.put(PoolKind.LOOMPOOL, List.of(new Trial(PoolKind.LOOMPOOL, 900, 0, 0, null, 1.0, new long[0], 64, 64)));
        m.put(PoolKind.HIKARI, List.of(new Trial(PoolKind.HIKARI, 900, 0, 0, null, 1.0, new long[0], 0, 64)));
        assertNull(Churn.violation(STEADY, m));
        String verdict = Churn.verdict(STEADY, m);
        assertTrue(verdict.startsWith("churn: **MET**") && verdict.contains("late growth, not churn: 64 opened in all, "
                + "HikariCP 64"), verdict);
        m.put(PoolKind.LOOMPOOL, List.of(new Trial(PoolKind.LOOMPOOL, 900, 0, 0, null, 1.0, new long[0], 64, 65)));
        assertNotNull(Churn.violation(STEADY, m), "one more than HikariCP in all: a replacement");
    }

    @Test
    void aReconnectingScenarioIsReportedNotJudged() {
        assertNull(Churn.violation(OUTAGE, trials(5, 5, 0, 0)));
        assertTrue(Churn.verdict(OUTAGE, trials(5, 5, 0, 0)).startsWith("churn reported, not judged"));
    }

    @Test
    void aRoundNotCountedIsNotJudged() {
        assertNull(Churn.violation(STEADY, trials(3, 3, 0, -1)));
        assertEquals("-", Churn.perThousand(List.of(trial(PoolKind.HIKARI, 10, 0), trial(PoolKind.HIKARI, 10, -1))));
    }

    @Test
    void perThousandIsOverEveryRound() {
        assertEquals("7.00 (7)", Churn.perThousand(trials(0, 0, 0, 0).get(PoolKind.DBCP2)));
        assertEquals("0.50 (2)", Churn.perThousand(trials(1, 1, 0, 0).get(PoolKind.LOOMPOOL)));
    }
}
