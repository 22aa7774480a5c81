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
abstract class FairnessScenarios extends ScenarioSupport {

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
        Pool<Res> pool = pool(1);
        List<String> served = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch holdOn = new CountDownLatch(1);
        Actor<Boolean> releaser = start(() -> {
            Lease<Res> lease = pool.acquire();
            holding.countDown();
            release.await(1, TimeUnit.MINUTES);
            lease.close(); // w0 gets it and holds on; w1, w2 still queue
            boolean barged = pool.tryAcquire().isPresent();
            try (Lease<Res> again = pool.acquire(Duration.ofMinutes(1))) {
                served.add("releaser");
            }
            return barged;
        });
        holding.await(1, TimeUnit.MINUTES);
        List<Actor<Void>> actors = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String me = "w" + i;
            actors.add(start(() -> {
                try (Lease<Res> lease = pool.acquire(Duration.ofMinutes(1))) {
                    served.add(me);
                    holdOn.await(1, TimeUnit.MINUTES);
                }
                return null;
            }));
            awaitPending(pool, i + 1);
        }
        release.countDown();
        awaitPending(pool, 3); // w1, w2, then the releaser
        eventually("w0 is served", () -> served.size() == 1);
        assertThat(served).containsExactly("w0");
        assertThat(pool.tryAcquire()).as("tryAcquire must not barge").isEmpty();
        assertThatThrownBy(() -> pool.acquire(Duration.ZERO)).isInstanceOf(AcquireTimeoutException.class);
        holdOn.countDown();
        assertThat(releaser.join()).as("the releaser's tryAcquire barged").isFalse();
        for (Actor<Void> actor : actors) {
            actor.join();
        }
        assertThat(served).containsExactly("w0", "w1", "w2", "releaser");
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
}
