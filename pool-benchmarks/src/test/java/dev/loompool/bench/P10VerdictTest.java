package dev.loompool.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** P10's verdict: "0 connections opened" is judged on the pool's count, never on a rounded rate. */
class P10VerdictTest {

    private static final Scenario OIV_ON = new P10RealApp(P10RealApp.Variant.OIV_ON);

    /** A P10 trial as HttpLoad makes it: its rate per 1,000 requests, rounded to two places, among the extras. */
    private static Trial trial(PoolKind pool, long requests, long opened) {
        Trial t = new Trial(pool, requests, 0, 0, null, 15.0, new long[] {1_000_000}, opened, 10 + opened);
        t.extra.put("conn opened/1k req", Math.round(opened * 1000.0 / requests * 100) / 100.0);
        return t;
    }

    private static String verdict(long loomRequests, long loomOpened) {
        Map<PoolKind, List<Trial>> m = new EnumMap<>(PoolKind.class);
        m.put(PoolKind.LOOMPOOL, List.of(trial(PoolKind.LOOMPOOL, loomRequests, loomOpened)));
        m.put(PoolKind.HIKARI, List.of(trial(PoolKind.HIKARI, loomRequests / 2, 0)));
        return Verdicts.of(OIV_ON, m);
    }

    @Test
    void oneConnectInManyRequestsIsNotZero() {
        // 1 in 500,000 requests is 0.002 per 1,000: two decimal places round it to 0.0.
        String v = verdict(500_000, 1);
        assertTrue(v.startsWith("**MISSED**"), v);
        assertTrue(v.contains("loompool 0.00 (1)"), v);
    }

    @Test
    void noConnectAndFasterMeetsIt() {
        String v = verdict(500_000, 0);
        assertTrue(v.startsWith("**MET**"), v);
    }
}
