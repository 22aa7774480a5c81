package dev.loompool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Strict FIFO, no barging, and reservations handed on (DESIGN.md §3, "Fairness"). */
class FairnessScenariosTest extends ScenarioSupport {

    private static final int WAITERS = 12;

    @Test
    void waitersAreServedInExactlyTheOrderTheyArrived() throws Exception {
        Pool<Res> pool = pool(1);
        Lease<Res> held = pool.acquire();
        List<Integer> served = Collections.synchronizedList(new ArrayList<>());
        List<Actor<Void>> actors = new ArrayList<>();
        for (int i = 0; i < WAITERS; i++) {
            int me = i;
            actors.add(start(() -> {
                try (Lease<Res> lease = pool.acquire(Duration.ofMinutes(1))) {
                    served.add(me);
                }
                return null;
            }));
            awaitPending(pool, i + 1); // the next one arrives strictly after this one queued
        }
        held.close();
        for (Actor<Void> actor : actors) {
            actor.join();
        }
        assertThat(served).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
        assertThat(factory.created).hasValue(1);
    }

    @Test
    void aReleaserThatAcquiresAgainQueuesBehindTheWaiters() throws Exception {
        Releaser run = new Releaser(Gate.opened());
        run.release.open();
        eventually("the releaser handed over to w0 and queued again", run::queuedAgain);
        assertThat(run.served).containsExactly("w0");
        assertThat(run.pool.tryAcquire()).as("tryAcquire must not barge").isEmpty();
        assertThatThrownBy(() -> run.pool.acquire(Duration.ZERO)).isInstanceOf(AcquireTimeoutException.class);
        run.holdOn.countDown();
        assertThat(run.releaser.join()).as("the releaser's tryAcquire barged").isFalse();
        for (Actor<Void> waiter : run.waiters) {
            waiter.join();
        }
        assertThat(run.served).containsExactly("w0", "w1", "w2", "releaser");
    }

    /**
     * The replay of that scenario, one step at a time: the scenario may let the waiters go only
     * once the releaser has released and queued again, and must see neither step before it happens.
     */
    @Test
    void theReleaserCountsAsQueuedAgainOnlyOnceItHasReleasedAndQueued() throws Exception {
        Gate beforeRetry = new Gate();
        Releaser run = new Releaser(beforeRetry);
        run.release.awaitEntered(); // w0, w1 and w2 queue; the releaser still holds the resource
        assertThat(run.queuedAgain()).as("before the releaser released").isFalse();
        run.release.open();
        beforeRetry.awaitEntered();
        eventually("w0 is served", () -> run.served.size() == 1);
        assertThat(run.queuedAgain()).as("released, but not yet queued again").isFalse();
        beforeRetry.open();
        eventually("the releaser queued again", run::queuedAgain);
        run.holdOn.countDown();
        assertThat(run.releaser.join()).as("the releaser's tryAcquire barged").isFalse();
        for (Actor<Void> waiter : run.waiters) {
            waiter.join();
        }
        assertThat(run.served).containsExactly("w0", "w1", "w2", "releaser");
    }

    /**
     * The hang that scenario once ended in, replayed: a releaser that falls behind until the waiters
     * are done finds the resource idle with nobody waiting, so its tryAcquire rightly takes it; its
     * acquire then waits for the one resource its own lease holds, and no hand-off can ever come.
     */
    @Test
    void aReleaserLeftBehindUntilTheWaitersAreDoneTakesTheIdleResourceAndThenWaitsOnItself() throws Exception {
        Gate beforeRetry = new Gate();
        Releaser run = new Releaser(beforeRetry);
        run.release.open();
        beforeRetry.awaitEntered();
        eventually("w0 is served", () -> run.served.size() == 1);
        run.holdOn.countDown();
        for (Actor<Void> waiter : run.waiters) {
            waiter.join();
        }
        assertCounts(run.pool, 1, 1, 0, 0); // idle, and nobody waits
        beforeRetry.open();
        awaitPending(run.pool, 1);
        assertCounts(run.pool, 1, 0, 1, 1); // in use by the lease its tryAcquire took, which it never closes
        run.pool.close(); // where the scenario waited out its patience
        assertThat(run.releaser.failure()).isInstanceOf(PoolClosedException.class);
        assertThat(run.served).containsExactly("w0", "w1", "w2");
    }

    @Test
    void aWaiterThatTimesOutPassesItsTurnToTheNext() throws Exception {
        Pool<Res> pool = pool(1);
        Lease<Res> held = pool.acquire();
        Actor<Lease<Res>> impatient = queued(pool, Duration.ofSeconds(1));
        Actor<Lease<Res>> patient = queued(pool);
        clock.advance(Duration.ofSeconds(1));
        impatient.unpark();
        assertThat(impatient.failure()).isInstanceOf(AcquireTimeoutException.class);
        assertCounts(pool, 1, 0, 1, 1);
        Res res = held.resource();
        held.close();
        Lease<Res> lease = patient.join();
        assertThat(lease.resource()).isSameAs(res);
        lease.close();
        assertCounts(pool, 1, 1, 0, 0);
    }

    @Test
    void anInterruptedWaiterLeavesTheQueueAndPassesItsTurnOn() throws Exception {
        Pool<Res> pool = pool(1);
        Lease<Res> held = pool.acquire();
        Actor<Lease<Res>> interrupted = queued(pool);
        Actor<Lease<Res>> next = queued(pool);
        interrupted.thread().interrupt();
        assertThat(interrupted.failure()).isInstanceOf(InterruptedException.class)
                .hasMessageContaining(pool.name());
        awaitPending(pool, 1);
        held.close();
        next.join().close();
        assertCounts(pool, 1, 1, 0, 0);
    }

    @Test
    void aFreedSlotGoesToTheOldestWaiterAsTheRightToCreate() throws Exception {
        Pool<Res> pool = pool(1);
        Lease<Res> held = pool.acquire();
        Actor<Lease<Res>> waiter = queued(pool);
        held.invalidate();
        Lease<Res> lease = waiter.join();
        assertThat(lease.resource().id).isEqualTo(2);
        assertThat(pool.tryAcquire()).isEmpty();
        lease.close();
        assertCounts(pool, 1, 1, 0, 0);
    }

    /**
     * The cast of {@link #aReleaserThatAcquiresAgainQueuesBehindTheWaiters}: a releaser holds the
     * only resource while w0, w1 and w2 queue; at {@link #release} it releases (w0 gets the
     * resource and holds on until {@link #holdOn}), then at {@code beforeRetry} it tries to barge
     * with tryAcquire and queues again.
     */
    final class Releaser {

        final Pool<Res> pool = pool(1);
        final List<String> served = Collections.synchronizedList(new ArrayList<>());
        final Gate release = new Gate();
        final CountDownLatch holdOn = new CountDownLatch(1);
        final List<Actor<Void>> waiters = new ArrayList<>();
        final Actor<Boolean> releaser;

        Releaser(Gate beforeRetry) throws InterruptedException {
            CountDownLatch holding = new CountDownLatch(1);
            releaser = start(() -> {
                Lease<Res> lease = pool.acquire();
                holding.countDown();
                release.pass();
                lease.close(); // w0 gets it and holds on; w1, w2 still queue
                beforeRetry.pass();
                boolean barged = pool.tryAcquire().isPresent();
                try (Lease<Res> again = pool.acquire(Duration.ofMinutes(1))) {
                    served.add("releaser");
                }
                return barged;
            });
            holding.await(1, TimeUnit.MINUTES);
            for (int i = 0; i < 3; i++) {
                String me = "w" + i;
                waiters.add(start(() -> {
                    try (Lease<Res> lease = pool.acquire(Duration.ofMinutes(1))) {
                        served.add(me);
                        holdOn.await(1, TimeUnit.MINUTES);
                    }
                    return null;
                }));
                awaitPending(pool, i + 1);
            }
        }

        /**
         * Whether the releaser handed over to w0 and queued again, behind w1 and w2. Three waiters
         * alone prove nothing: w0, w1 and w2 are three before the release too. Only once w0 is
         * served is the third the releaser, whose tryAcquire then came while w0 held the resource.
         * A scenario that let the waiters go on three alone could leave the releaser behind until
         * they were done: {@link #aReleaserLeftBehindUntilTheWaitersAreDoneTakesTheIdleResourceAndThenWaitsOnItself}.
         */
        boolean queuedAgain() {
            // served first: the other way round, a count of three taken before the release would pass
            return served.size() == 1 && pool.stats().pending() == 3;
        }
    }
}
