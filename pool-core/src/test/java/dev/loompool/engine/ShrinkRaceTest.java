package dev.loompool.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A lock-free release racing a lower maxSize, played out step by step on {@link Slots}: an entry
 * that reaches the lane after the resize looked there is still found surplus, and never stays idle
 * above maxSize.
 */
class ShrinkRaceTest {

    private record Res(int id) {
    }

    private final Slots<Res> slots = new Slots<>(0, 2);

    private Entry<Res> lent(int id) {
        assertThat(slots.reserve(false)).isEqualTo(Signal.CREATE);
        return new Entry<>(new Res(id));
    }

    @Test
    void theResizeTakesTheSurplusOutOfTheLane() {
        Entry<Res> a = lent(1);
        Entry<Res> b = lent(2);
        assertThat(slots.putBack(b, true)).isNull(); // idle, in the lane
        assertThat(slots.laneOpen()).as("the releaser's first look, before the resize").isTrue();
        List<Entry<Res>> surplus = slots.resize(0, 1);
        assertThat(surplus).containsExactly(b);
        assertThat(slots.free(true)).isFalse();
        assertThat(slots.stats().total()).as("a, lent out, is the one left").isEqualTo(1);
        assertThat(slots.putBack(a, true)).as("a is within maxSize and stays").isNull();
        assertThat(slots.stats().idle()).isEqualTo(1);
    }

    @Test
    void aReleaseThatPassedTheFirstLookBeforeTheResizeFindsItsEntrySurplus() {
        Entry<Res> a = lent(1);
        Entry<Res> b = lent(2);
        assertThat(slots.laneOpen()).isTrue(); // a's releaser looks: the lane is open
        assertThat(slots.resize(0, 1)).as("nothing idle yet").isEmpty();
        assertThat(slots.lanePut(a)).isNull(); // and puts, after the resize
        assertThat(slots.afterLanePut()).as("the second look sees the pool shrinking").containsExactly(a);
        assertThat(a.surplus).isTrue();
        assertThat(slots.free(true)).isFalse();
        assertThat(slots.stats().total()).isEqualTo(1);
        assertThat(slots.laneOpen()).as("back within maxSize").isTrue();
        assertThat(slots.putBack(b, true)).as("b stays").isNull();
        assertThat(slots.stats().idle()).isEqualTo(1);
    }
}
