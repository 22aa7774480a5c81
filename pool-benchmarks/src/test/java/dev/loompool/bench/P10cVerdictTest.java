package dev.loompool.bench;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** P10c's verdict: loompool at 2 and 5 connections, each against HikariCP at 10, on counts and set latencies. */
class P10cVerdictTest {

    private static final SizedScenario OIV_ON = new P10cFewerConnections(new P10RealApp(P10RealApp.Variant.OIV_ON));
    private static final SizedScenario.Contender TWO = OIV_ON.contenders().get(0);
    private static final SizedScenario.Contender FIVE = OIV_ON.contenders().get(1);
    private static final SizedScenario.Contender HIKARI = OIV_ON.baseline();

    /** A 10 s trial at {@code perSecond} whose every request took {@code p99Millis}; the pool opened its size at start. */
    private static Trial trial(SizedScenario.Contender c, long perSecond, long p99Millis, long opened) {
        long[] nanos = new long[100];
        Arrays.fill(nanos, p99Millis * 1_000_000);
        return new Trial(c.pool(), perSecond * 10, 0, 0, null, 10.0, nanos, opened, c.size() + opened);
    }

    private static Map<SizedScenario.Contender, List<Trial>> trials(Trial two, Trial five, Trial hikari) {
        Map<SizedScenario.Contender, List<Trial>> m = new LinkedHashMap<>();
        m.put(TWO, List.of(two));
        m.put(FIVE, List.of(five));
        m.put(HIKARI, List.of(hikari));
        return m;
    }

    @Test
    void contendersAreLoompoolAtTwoAndFiveAgainstHikariAtTen() {
        assertTrue(TWO.label().equals("loompool@2") && FIVE.label().equals("loompool@5") && HIKARI.label().equals("HikariCP@10"),
                OIV_ON.contenders().toString());
        assertTrue(OIV_ON.id().equals("P10c-oiv-on") && OIV_ON.group().equals("P10c"), OIV_ON.id());
    }

    @Test
    void levelOnTwoAndAheadOnFiveWithoutConnectsMeetsIt() {
        String v = Verdicts.ofSized(OIV_ON, trials(trial(TWO, 500, 800, 0), trial(FIVE, 600, 700, 0), trial(HIKARI, 500, 900, 0)));
        assertTrue(v.startsWith("**MET**"), v);
        assertTrue(v.contains("loompool@2 1.00x HikariCP@10's requests/s, p99 800.00 ms"), v);
        assertTrue(v.contains("loompool@5 1.20x"), v);
    }

    @Test
    void aWorseTailOnTwoMissesItThoughTheRateIsLevel() {
        String v = Verdicts.ofSized(OIV_ON, trials(trial(TWO, 520, 950, 0), trial(FIVE, 600, 700, 0), trial(HIKARI, 500, 900, 0)));
        assertTrue(v.startsWith("**MISSED**"), v);
    }

    @Test
    void fiveOnlyJustAheadIsNotClearlyAhead() {
        String v = Verdicts.ofSized(OIV_ON, trials(trial(TWO, 500, 800, 0), trial(FIVE, 525, 700, 0), trial(HIKARI, 500, 900, 0)));
        assertTrue(v.startsWith("**MISSED**"), v);
    }

    @Test
    void oneConnectInManyRequestsMissesItAndIsCounted() {
        String v = Verdicts.ofSized(OIV_ON, trials(trial(TWO, 50_000, 800, 1), trial(FIVE, 60_000, 700, 0),
                trial(HIKARI, 50_000, 900, 0)));
        assertTrue(v.startsWith("**MISSED**"), v);
        assertTrue(v.contains("loompool@2 0.00 (1)"), v);
    }

    @Test
    void churnIsConnectsInTheWindowBeyondTheContendersOwnSize() {
        // 2 opened at start, 3 more in the window: 5 in all, more than its 2 (some replaced connections it closed).
        assertNotNull(Churn.violation(OIV_ON, TWO, trials(trial(TWO, 500, 800, 3), trial(FIVE, 600, 700, 0),
                trial(HIKARI, 500, 900, 0))));
        assertNull(Churn.violation(OIV_ON, TWO, trials(trial(TWO, 500, 800, 0), trial(FIVE, 600, 700, 0),
                trial(HIKARI, 500, 900, 0))));
        assertNull(Churn.violation(OIV_ON, HIKARI, trials(trial(TWO, 500, 800, 0), trial(FIVE, 600, 700, 0),
                trial(HIKARI, 500, 900, 3))), "HikariCP is the baseline, never judged");
    }
}
