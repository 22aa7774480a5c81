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
        Releaser run = new Releaser(Gate.opened());
        run.release.open();
        eventually("the releaser handed over to w0 and queued again", run::queuedAgain);
        eventually("w0 is served", () -> run.served.size() == 1);
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

        /** Whether the releaser handed over to w0 and queued again, behind w1 and w2. */
        boolean queuedAgain() {
            return pool.stats().pending() == 3; // w1, w2, then the releaser
        }
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
