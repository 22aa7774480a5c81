package dev.loompool.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.PoolStats;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The interleavings of a lock-free release and a thread about to wait, played out step by step on
 * {@link Slots}: whatever the order, the entry reaches the waiter and is never lost.
 */
@SuppressWarnings("unchecked")
class LaneRaceTest {

    /** A resource: only its entry's identity matters here. */
    private record Res(int id) {
    }


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
        assertThat(slots.lanePut(entry)).as("placed").isNull();
        assertThat(slots.afterLanePut()).isNull(); // the second look must see the waiter
        assertThat(((Waiter) waiter).outcome).as("handed to the waiter").isSameAs(entry);
        assertThat(slots.stats().pending()).isZero();
        assertThat(slots.fastTake()).as("nothing left behind in the lane").isNull();
    }

    @Test
    void aWaiterThatArrivesAfterThePutFindsTheEntryItself() {
        Entry<Res> entry = lent();
        assertThat(slots.laneOpen()).isTrue();
        assertThat(slots.lanePut(entry)).as("placed").isNull();
        assertThat(slots.reserve(true)).as("counts itself in, then looks in the lane").isSameAs(entry);
        assertThat(slots.afterLanePut()).isNull();
        assertThat(slots.stats().pending()).isZero();
    }

    @Test
    void anEntryThatSlippedIntoTheLaneGoesToTheOldestWaiterNotTheNewcomer() {
        Entry<Res> entry = lent();
        assertThat(slots.laneOpen()).isTrue();
        Object first = slots.reserve(true);
        assertThat(slots.lanePut(entry)).as("placed").isNull(); // the releaser has not looked again yet
        Object second = slots.reserve(true);       // a newcomer finds the entry in the lane...
        assertThat(((Waiter) first).outcome).as("...and passes it to the oldest").isSameAs(entry);
        assertThat(second).isInstanceOf(Waiter.class);
        assertThat(slots.afterLanePut()).isNull();
        assertThat(((Waiter) second).outcome).isSameAs(Signal.PENDING);
        assertThat(slots.stats().pending()).isEqualTo(1);
    }

    @Test
    void anEntryPutAfterCloseIsGivenBackToTheReleaserToDestroy() {
        Entry<Res> entry = lent();
        assertThat(slots.laneOpen()).isTrue();
        List<Entry<Res>> idle = slots.close();
        assertThat(idle).isEmpty();
        assertThat(slots.lanePut(entry)).as("placed").isNull();
        assertThat(slots.afterLanePut()).as("closed: the releaser destroys it").containsExactly(entry);
        assertThat(slots.fastTake()).isNull();
    }

    @Test
    void theCountsStayExactWithEntriesInTheLane() {
        Entry<Res> entry = lent();
        assertThat(slots.stats()).extracting(PoolStats::total, PoolStats::idle, PoolStats::inUse).containsExactly(1, 0, 1);
        assertThat(slots.putBack(entry, true)).isNull();
        assertThat(slots.stats()).extracting(PoolStats::total, PoolStats::idle, PoolStats::inUse).containsExactly(1, 1, 0);
        assertThat(slots.fastTake()).isSameAs(entry);
        assertThat(slots.stats()).extracting(PoolStats::total, PoolStats::idle, PoolStats::inUse).containsExactly(1, 0, 1);
    }

    @Test
    void releasesRacingACloseGiveBackEverythingTheLaneHolds() {
        Slots<Res> two = new Slots<>(0, 2);
        assertThat(two.reserve(false)).isEqualTo(Signal.CREATE);
        assertThat(two.reserve(false)).isEqualTo(Signal.CREATE);
        Entry<Res> a = new Entry<>(new Res(1));
        Entry<Res> b = new Entry<>(new Res(2));
        assertThat(two.laneOpen()).isTrue();
        assertThat(two.close()).isEmpty();
        assertThat(two.lanePut(a)).isNull();
        assertThat(two.lanePut(b)).as("b takes the home slot, a moves up").isNull();
        assertThat(two.afterLanePut()).as("both are destroyed, by whoever looks first").containsExactlyInAnyOrder(a, b);
        assertThat(two.afterLanePut()).isEmpty();
    }

    @Test
    void aThreadGetsBackWhatItReturnedLastFirstEvenPastTheLanesSize() {
        Slots<Res> many = new Slots<>(0, 40); // more than any lane holds
        List<Entry<Res>> returned = new java.util.ArrayList<>();
        for (int i = 0; i < 40; i++) {
            assertThat(many.reserve(false)).isEqualTo(Signal.CREATE);
            returned.add(new Entry<>(new Res(i)));
        }
        returned.forEach(e -> assertThat(many.putBack(e, true)).isNull());
        assertThat(many.stats()).extracting(PoolStats::total, PoolStats::idle, PoolStats::inUse).containsExactly(40, 40, 0);
        assertThat(many.fastTake()).as("the last one returned").isSameAs(returned.get(39));
        java.util.Set<Entry<Res>> seen = new java.util.HashSet<>();
        seen.add(returned.get(39));
        Object next;
        while ((next = many.reserve(false)) instanceof Entry<?>) {
            assertThat(seen.add((Entry<Res>) next)).as("lent once").isTrue();
        }
        assertThat(next).as("all lent, none left to create").isSameAs(Signal.NONE);
        assertThat(seen).hasSize(40);
        assertThat(many.stats()).extracting(PoolStats::total, PoolStats::idle, PoolStats::inUse).containsExactly(40, 0, 40);
    }
}
