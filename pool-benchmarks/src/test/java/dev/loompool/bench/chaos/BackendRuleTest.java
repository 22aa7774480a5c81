package dev.loompool.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The chaos suite's rule for backends above the pool's total (see {@link BackendRule}). */
class BackendRuleTest {

    private final BackendRule rule = new BackendRule();

    @Test
    void aMomentaryExcessOfBackendsIsNotAFinding() {
        assertFalse(rule.violatedBy(0, 11, 10, 10));
        assertFalse(rule.violatedBy(200, 11, 10, 10));
        assertFalse(rule.violatedBy(400, 11, 10, 10));
        assertFalse(rule.violatedBy(600, 10, 10, 10));
        assertFalse(rule.violatedBy(800, 11, 10, 10));
        assertFalse(rule.violatedBy(1_600, 11, 10, 10));
    }

    @Test
    void anExcessThatLastsASecondIsAFindingReportedOnce() {
        for (long t = 0; t < 1_000; t += 200) {
            assertFalse(rule.violatedBy(t, 11, 10, 10), "at " + t);
        }
        assertTrue(rule.violatedBy(1_000, 11, 10, 10));
        assertFalse(rule.violatedBy(1_200, 11, 10, 10), "one finding per run of excess samples");
    }

    @Test
    void aLongGapBetweenTwoSamplesIsNotEnough() {
        assertFalse(rule.violatedBy(0, 11, 10, 10));
        assertFalse(rule.violatedBy(5_000, 11, 10, 10));
        assertTrue(rule.violatedBy(5_200, 11, 10, 10));
    }

    @Test
    void theLargerOfThePoolTotalsAroundTheServerQueryCounts() {
        for (long t = 0; t < 5_000; t += 200) {
            assertFalse(rule.violatedBy(t, 10, 9, 10));
            assertFalse(rule.violatedBy(t + 100, 10, 10, 9));
        }
    }

    @Test
    void anUnreachableServerEndsARunOfExcess() {
        rule.violatedBy(0, 12, 10, 10);
        rule.violatedBy(600, 12, 10, 10);
        rule.unavailable();
        assertFalse(rule.violatedBy(1_200, 12, 10, 10));
        assertFalse(rule.violatedBy(1_400, 12, 10, 10));
        assertTrue(rule.violatedBy(2_200, 12, 10, 10));
    }
}
