package dev.loompool.jdbc.internal.handle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.PinReason;
import org.junit.jupiter.api.Test;

/** The pin set on its own: reasons as a set, what it tracks by identity, and when it holds. */
class PinSetTest {

    @Test
    void anEmptySetHoldsNothing() {
        PinSet set = new PinSet(null);
        assertThat(set.holds()).isFalse();
        assertThat(set.trackedCount()).isZero();
        assertThat(set.reasons()).isEmpty();
    }

    @Test
    void aSetMadeForAHandleKeepsTheStatementItHadAndHoldsForIt() {
        Tracked first = () -> { };
        PinSet set = new PinSet(first);
        assertThat(set.holds()).isTrue();
        assertThat(set.trackedCount()).isEqualTo(1);
        assertThat(set.untrack(first)).isTrue();
        assertThat(set.holds()).as("the last one out ends the statement pin").isFalse();
    }

    @Test
    void reasonsComeAndGoOneByOne() {
        PinSet set = new PinSet(null);
        set.add(PinReason.TRANSACTION);
        set.add(PinReason.EXPLICIT);
        assertThat(set.reasons()).containsExactlyInAnyOrder(PinReason.TRANSACTION, PinReason.EXPLICIT);
        assertThat(set.has(PinReason.SESSION_STATE)).isFalse();
        set.remove(PinReason.TRANSACTION);
        assertThat(set.reasons()).containsExactly(PinReason.EXPLICIT);
        assertThat(set.holds()).isTrue();
        set.clearReasons();
        assertThat(set.holds()).isFalse();
    }

    @Test
    void trackedOnesAreFoundByIdentityAndTakenOutTogether() {
        Tracked a = () -> { };
        Tracked b = () -> { };
        Tracked c = () -> { };
        PinSet set = new PinSet(a);
        set.track(b);
        set.track(c);
        assertThat(set.trackedCount()).isEqualTo(3);
        assertThat(set.untrack(b)).isTrue();
        assertThat(set.untrack(b)).as("once only").isFalse();
        assertThat(set.trackedCount()).isEqualTo(2);
        Object taken = set.takeTracked();
        assertThat(taken).isInstanceOf(java.util.List.class);
        assertThat(set.trackedCount()).isZero();
        assertThat(set.holds()).isFalse();
    }
}
