package dev.loompool.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The chaos suite's rule for backends above the pool's total (see {@link BackendRule}). */
class BackendRuleTest {

    @Test
    void aMomentaryExcessOfBackendsIsNotAFindingButAPersistentOneIs() {
        BackendRule rule = new BackendRule();
        assertFalse(rule.violatedBy(11, 10, 10));
        assertFalse(rule.violatedBy(10, 10, 10));
        assertFalse(rule.violatedBy(11, 10, 10));
        assertFalse(rule.violatedBy(11, 10, 10));
        assertTrue(rule.violatedBy(11, 10, 10));
        assertFalse(rule.violatedBy(11, 10, 10), "one finding per run of excess samples");
    }

    @Test
    void theLargerOfThePoolTotalsAroundTheServerQueryCounts() {
        BackendRule rule = new BackendRule();
        for (int i = 0; i < 5; i++) {
            assertFalse(rule.violatedBy(10, 9, 10));
            assertFalse(rule.violatedBy(10, 10, 9));
        }
    }

    @Test
    void anUnreachableServerEndsARunOfExcess() {
        BackendRule rule = new BackendRule();
        rule.violatedBy(12, 10, 10);
        rule.violatedBy(12, 10, 10);
        rule.unavailable();
        assertFalse(rule.violatedBy(12, 10, 10));
        assertFalse(rule.violatedBy(12, 10, 10));
        assertTrue(rule.violatedBy(12, 10, 10));
    }
}
