package dev.loompool;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A randomized run of acquire / tryAcquire / release / invalidate with random timeouts, factory,
 * check and healthcheck failures, interrupts and circuit flips, checking after every step that can
 * observe them that the counts add up, no resource is lent twice and the pool never grows past
 * maxSize; and, after close, that every resource ever created was destroyed exactly once.
 */
final class StressRun {

    private static final int MAX_SIZE = 4;

    private final StubFactory factory = new StubFactory();
    private final Set<Res> held = ConcurrentHashMap.newKeySet();
    private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    private final AtomicLong operations = new AtomicLong();
    private final AtomicLong leases = new AtomicLong();
    private final Pool<Res> pool;
    private volatile boolean built;

    StressRun() {
        pool = Pool.builder(() -> {
            if (built && chance(0.01)) { // not in the pre-warm: build() would fail by chance
                throw new IllegalStateException("random factory failure");
            }
            Res res = factory.create();
            int live = factory.created.get() - factory.destroyed.get();
            if (live > MAX_SIZE) {
                violations.add(live + " resources alive, more than maxSize " + MAX_SIZE);
            }
            return res;
        })
                .destructor(factory)
                .minSize(1).maxSize(MAX_SIZE)
                .beforeAcquire(r -> notHeld(r, "beforeAcquire") && !chance(0.01))
                .beforeRelease(r -> !chance(0.01))
                .healthcheck(r -> notHeld(r, "healthcheck") && !chance(0.01))
                .healthcheckInterval(Duration.ofMillis(1))
                .name("stress")
                .build();
        built = true;
    }

    private static boolean chance(double p) {
        return ThreadLocalRandom.current().nextDouble() < p;
    }

    private boolean notHeld(Res r, String where) {
        if (held.contains(r)) {
            violations.add(where + " got " + r + ", which is lent out");
        }
        if (r.destroyed.get() != 0) {
            violations.add(where + " got " + r + ", which was destroyed");
        }
        return true;
    }

    /** Runs {@code workers} threads until {@code totalOperations} acquire attempts are done. */
    void run(ThreadFactory threads, int workers, long totalOperations) throws InterruptedException {
        List<Thread> all = new ArrayList<>(workers);
        for (int i = 0; i < workers; i++) {
            all.add(threads.newThread(() -> work(all, totalOperations)));
        }
        all.forEach(Thread::start);
        for (Thread t : all) {
            t.join();
        }
        assertThat(violations).as("invariant violations").isEmpty();
        assertThat(operations.get()).isGreaterThanOrEqualTo(totalOperations);
        assertThat(leases.get()).as("leases granted").isPositive();
        // The healthcheck or a refill may hold a resource for a moment; a leaked slot never comes back.
        ScenarioSupport.eventually("nothing stays in use once every worker is done: " + pool.stats(),
                () -> pool.stats().inUse() == 0);
        assertThat(pool.stats().pending()).isZero();
        pool.activate();
        pool.close();
        assertThat(pool.stats().total()).isZero();
        assertThat(factory.all).hasSize(factory.created.get())
                .allSatisfy(r -> assertThat(r.destroyed).as("destroy count of %s", r).hasValue(1));
    }

    private void work(List<Thread> all, long totalOperations) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (operations.incrementAndGet() <= totalOperations) {
            try {
                Lease<Res> lease = obtain(random);
                if (lease != null) {
                    use(lease, random);
                }
            } catch (AcquireTimeoutException | ServiceUnavailableException | InterruptedException expected) {
                // part of the weather
            } catch (PoolException e) {
                if (e.getClass() != PoolException.class || e.getCause() == null) {
                    violations.add("unexpected " + e);
                }
            } catch (RuntimeException | Error e) {
                violations.add("unexpected " + e);
            }
            if (random.nextInt(2_000) == 0) {
                all.get(random.nextInt(all.size())).interrupt();
            }
            if (random.nextInt(20_000) == 0) {
                pool.deactivate(); // wakes the waiters with ServiceUnavailableException
                pool.activate();
            }
            Thread.interrupted();
            checkCounts();
        }
    }

    private Lease<Res> obtain(ThreadLocalRandom random) throws InterruptedException {
        if (random.nextInt(5) == 0) {
            Optional<Lease<Res>> lease = pool.tryAcquire();
            return lease.orElse(null);
        }
        return pool.acquire(Duration.ofNanos(random.nextLong(2_000_000)));
    }

    private void use(Lease<Res> lease, ThreadLocalRandom random) {
        leases.incrementAndGet();
        Res res = lease.resource();
        if (!held.add(res)) {
            violations.add(res + " lent to two leases at once");
        }
        if (res.destroyed.get() != 0) {
            violations.add(res + " lent after it was destroyed");
        }
        checkCounts();
        if (!held.remove(res)) {
            violations.add(res + " vanished from the held set");
        }
        if (random.nextInt(20) == 0) {
            lease.invalidate();
        } else {
            lease.close();
        }
    }

    private void checkCounts() {
        PoolStats s = pool.stats();
        if (s.total() != s.idle() + s.inUse() || s.total() > MAX_SIZE || s.idle() < 0 || s.inUse() < 0
                || s.pending() < 0) {
            violations.add("inconsistent counts " + s);
        }
    }
}
