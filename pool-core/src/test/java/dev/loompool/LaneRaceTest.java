package dev.loompool;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The interleavings of a lock-free release and a thread about to wait, played out step by step on
 * {@link Slots}: whatever the order, the entry reaches the waiter and is never lost.
 */
class LaneRaceTest {

    private final Slots<Res> slots = new Slots<>(0, 1);

    private Entry<Res> lent() {
        assertThat(slots.reserve(false)).isEqualTo(Signal.CREATE);
        return new Entry<>(new Res(1));
    }

    @Test
    void aWaiterThatArrivesBetweenTheReleasersTwoLooksIsHandedTheEntry() {
        Entry<Res> entry = lent();
        assertThat(slots.laneOpen()).as("the releaser's first look: nobody waits").isTrue();
        Object waiter = slots.reserve(true); // the waiter counts itself in, finds the lane empty, sleeps
        assertThat(waiter).isInstanceOf(Waiter.class);
        assertThat(slots.lanePut(entry)).isTrue();
        assertThat(slots.afterLanePut(entry)).isTrue(); // the second look must see the waiter
        assertThat(((Waiter) waiter).outcome).as("handed to the waiter").isSameAs(entry);
        assertThat(slots.stats().pending()).isZero();
        assertThat(slots.fastTake()).as("nothing left behind in the lane").isNull();
    }

    @Test
    void aWaiterThatArrivesAfterThePutFindsTheEntryItself() {
        Entry<Res> entry = lent();
        assertThat(slots.laneOpen()).isTrue();
        assertThat(slots.lanePut(entry)).isTrue();
        assertThat(slots.reserve(true)).as("counts itself in, then looks in the lane").isSameAs(entry);
        assertThat(slots.afterLanePut(entry)).isTrue();
        assertThat(slots.stats().pending()).isZero();
    }

    @Test
    void anEntryThatSlippedIntoTheLaneGoesToTheOldestWaiterNotTheNewcomer() {
        Entry<Res> entry = lent();
        assertThat(slots.laneOpen()).isTrue();
        Object first = slots.reserve(true);
        assertThat(slots.lanePut(entry)).isTrue(); // the releaser has not looked again yet
        Object second = slots.reserve(true);       // a newcomer finds the entry in the lane...
        assertThat(((Waiter) first).outcome).as("...and passes it to the oldest").isSameAs(entry);
        assertThat(second).isInstanceOf(Waiter.class);
        assertThat(slots.afterLanePut(entry)).isTrue();
        assertThat(((Waiter) second).outcome).isNull();
        assertThat(slots.stats().pending()).isEqualTo(1);
    }

    @Test
    void anEntryPutAfterCloseIsGivenBackToTheReleaserToDestroy() {
        Entry<Res> entry = lent();
        assertThat(slots.laneOpen()).isTrue();
        List<Entry<Res>> idle = slots.close();
        assertThat(idle).isEmpty();
        assertThat(slots.lanePut(entry)).isTrue();
        assertThat(slots.afterLanePut(entry)).as("closed: the releaser destroys it").isFalse();
        assertThat(slots.fastTake()).isNull();
    }

    @Test
    void theCountsStayExactWithEntriesInTheLane() {
        Entry<Res> entry = lent();
        assertThat(slots.stats()).extracting(PoolStats::total, PoolStats::idle, PoolStats::inUse).containsExactly(1, 0, 1);
        assertThat(slots.putBack(entry, true)).isTrue();
        assertThat(slots.stats()).extracting(PoolStats::total, PoolStats::idle, PoolStats::inUse).containsExactly(1, 1, 0);
        assertThat(slots.fastTake()).isSameAs(entry);
        assertThat(slots.stats()).extracting(PoolStats::total, PoolStats::idle, PoolStats::inUse).containsExactly(1, 0, 1);
    }
}
