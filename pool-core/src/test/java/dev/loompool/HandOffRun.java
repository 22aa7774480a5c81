package dev.loompool;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Many more threads than resources, each acquiring with a generous timeout and releasing at once,
 * so that releases race waiters on the lock-free lane all the time. A lost wake-up (an entry left
 * in the lane while a waiter sleeps) would surface as a timeout: there must be none.
 */
final class HandOffRun {

    private HandOffRun() {
    }

    static void run(ThreadFactory threads, int workers, int maxSize, long operations) throws InterruptedException {
        StubFactory factory = new StubFactory();
        Pool<Res> pool = Pool.builder(factory).destructor(factory).maxSize(maxSize).name("hand-off").build();
        AtomicLong done = new AtomicLong();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Thread> all = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            all.add(threads.newThread(() -> {
                while (done.incrementAndGet() <= operations) {
                    try (Lease<Res> lease = pool.acquire(Duration.ofSeconds(20))) {
                        if (lease.resource().destroyed.get() != 0) {
                            failures.add(new AssertionError("lent a destroyed resource"));
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                        return;
                    }
                }
            }));
        }
        all.forEach(Thread::start);
        for (Thread t : all) {
            t.join();
        }
        assertThat(failures).as("timeouts mean a waiter slept past an idle resource").isEmpty();
        PoolStats s = pool.stats();
        assertThat(s.inUse()).isZero();
        assertThat(s.pending()).isZero();
        assertThat(s.total()).isEqualTo(s.idle()).isLessThanOrEqualTo(maxSize);
        pool.close();
        assertThat(factory.all).allSatisfy(r -> assertThat(r.destroyed).hasValue(1));
    }

    /**
     * The exact race the lane must survive: one resource; its holder releases it and leaves just as
     * a waiter arrives. If the release lands in the lane after the waiter looked there, only the
     * releaser's second look at the waiter count can hand it on; nobody else comes to help.
     */
    static void releaseAndLeave(ThreadFactory threads, int iterations) throws Exception {
        StubFactory factory = new StubFactory();
        try (Pool<Res> pool = Pool.builder(factory).destructor(factory).maxSize(1).name("leave").build()) {
            java.util.Random random = new java.util.Random(42);
            for (int i = 0; i < iterations; i++) {
                Lease<Res> held = pool.acquire();
                java.util.concurrent.CompletableFuture<Boolean> served = new java.util.concurrent.CompletableFuture<>();
                int waiterDelay = random.nextInt(200);
                threads.newThread(() -> {
                    spin(waiterDelay);
                    try (Lease<Res> lease = pool.acquire(Duration.ofSeconds(10))) {
                        served.complete(true);
                    } catch (Throwable e) {
                        served.completeExceptionally(e);
                    }
                }).start();
                spin(random.nextInt(200));
                held.close(); // and the holder leaves
                assertThat(served.get(30, java.util.concurrent.TimeUnit.SECONDS))
                        .as("iteration %d: the waiter was served", i).isTrue();
            }
        }
    }

    private static void spin(int rounds) {
        for (int i = 0; i < rounds; i++) {
            Thread.onSpinWait();
        }
    }
}
