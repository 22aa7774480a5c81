package dev.loompool;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** beforeAcquire, beforeRelease, healthcheck and refill (DESIGN.md §3, "Release" and "Healthcheck"). */
class CallbackScenariosTest extends ScenarioSupport {

    private final List<DestroyReason> destroyed = new CopyOnWriteArrayList<>();
    private final PoolListener recordDestroys = new PoolListener() {
        @Override
        public void onDestroyed(DestroyReason reason) {
            destroyed.add(reason);
        }
    };

    @Test
    void beforeAcquireRejectingWithFalseDestroysAndTakesTheNextResource() throws Exception {
        Set<Res> checked = ConcurrentHashMap.newKeySet();
        Pool<Res> pool = track(builder().maxSize(2).listener(recordDestroys)
                .beforeAcquire(r -> checked.add(r) && r.healthy).build());
        Lease<Res> a = pool.acquire();
        Lease<Res> b = pool.acquire();
        Res resA = a.resource();
        Res resB = b.resource();
        assertThat(checked).as("fresh resources skip beforeAcquire").isEmpty();
        b.close();
        a.close();
        resA.healthy = false;
        // Take both idle resources, in whatever order the pool offers them: A must be refused.
        Lease<Res> first = start(pool::acquire).join();
        Lease<Res> second = start(pool::acquire).join();
        assertThat(resA.destroyed).hasValue(1);
        assertThat(destroyed).containsExactly(DestroyReason.BEFORE_ACQUIRE_REJECTED);
        assertThat(List.of(first.resource(), second.resource())).contains(resB).doesNotContain(resA);
        assertThat(factory.created).as("A's slot was refilled by creating one").hasValue(3);
        assertCounts(pool, 2, 0, 2, 0);
        first.close();
        second.close();
    }

    @Test
    void beforeAcquireThrowingRejectsTooAndTheCallerGetsAFreshResource() throws Exception {
        Pool<Res> pool = track(builder().maxSize(1).beforeAcquire(r -> {
            throw new IllegalStateException("stale");
        }).build());
        Res first;
        try (Lease<Res> lease = pool.acquire()) {
            first = lease.resource();
        }
        Lease<Res> lease = start(pool::acquire).join();
        assertThat(lease.resource()).isNotSameAs(first);
        assertThat(first.destroyed).hasValue(1);
        assertCounts(pool, 1, 0, 1, 0);
        lease.close();
    }

    @Test
    void beforeAcquireRunsOnASlotCountedInUse() throws Exception {
        Gate gate = new Gate();
        Pool<Res> pool = track(builder().maxSize(2).beforeAcquire(r -> {
            gate.pass();
            return true;
        }).build());
        pool.acquire().close();
        Actor<Lease<Res>> taker = start(pool::acquire);
        gate.awaitEntered();
        assertCounts(pool, 1, 0, 1, 0);
        gate.open();
        taker.join().close();
    }

    @Test
    void beforeReleaseRejectingDestroysTheResourceAndWakesAWaiter() throws Exception {
        Pool<Res> pool = track(builder().maxSize(1).listener(recordDestroys).beforeRelease(r -> r.healthy).build());
        Lease<Res> held = pool.acquire();
        Actor<Lease<Res>> waiter = queued(pool);
        held.resource().healthy = false;
        Res bad = held.resource();
        held.close();
        Lease<Res> lease = waiter.join();
        assertThat(lease.resource()).isNotSameAs(bad);
        assertThat(bad.destroyed).hasValue(1);
        assertThat(destroyed).containsExactly(DestroyReason.BEFORE_RELEASE_REJECTED);
        lease.close();
        assertCounts(pool, 1, 1, 0, 0);
    }

    @Test
    void aDestructorThatAsksIsToldWhyEachResourceGoes() throws Exception {
        List<DestroyReason> told = new CopyOnWriteArrayList<>();
        Pool<Res> pool = track(Pool.builder(factory).clock(clock).maxSize(2).beforeRelease(r -> r.healthy)
                .destructor(new ResourceDestructor<Res>() {
                    @Override
                    public void destroy(Res r) {
                        throw new AssertionError("the pool calls the one that takes the reason");
                    }

                    @Override
                    public void destroy(Res r, DestroyReason reason) {
                        told.add(reason);
                    }
                }).build());
        Lease<Res> bad = pool.acquire();
        Lease<Res> good = pool.acquire();
        bad.resource().healthy = false;
        bad.close();
        good.close();
        pool.close();
        assertThat(told).containsExactly(DestroyReason.BEFORE_RELEASE_REJECTED, DestroyReason.POOL_CLOSED);
    }

    @Test
    void beforeReleaseThrowingRejectsTheResource() throws Exception {
        Pool<Res> pool = track(builder().maxSize(1).beforeRelease(r -> {
            throw new IllegalStateException("reset failed");
        }).build());
        Lease<Res> lease = pool.acquire();
        Res res = lease.resource();
        startVoid(lease::close).join();
        assertThat(res.destroyed).hasValue(1);
        assertCounts(pool, 0, 0, 0, 0);
    }

    @Test
    void beforeReleaseAndTheDestructorRunOnSlotsCountedInUse() throws Exception {
        Gate releasing = new Gate();
        Gate destroying = new Gate();
        Pool<Res> pool = track(Pool.builder(factory).clock(clock).maxSize(2)
                .beforeRelease(r -> {
                    releasing.pass();
                    return true;
                })
                .destructor(r -> destroying.pass()).build());
        Lease<Res> lease = pool.acquire();
        Actor<Void> releaser = startVoid(lease::close);
        releasing.awaitEntered();
        assertCounts(pool, 1, 0, 1, 0);
        releasing.open();
        releaser.join();
        Lease<Res> again = pool.acquire();
        Actor<Void> invalidator = startVoid(again::invalidate);
        destroying.awaitEntered();
        assertCounts(pool, 1, 0, 1, 0);
        destroying.open();
        invalidator.join();
        assertCounts(pool, 0, 0, 0, 0);
    }

    @Test
    void theHealthcheckSeesIdleResourcesOnlyAndDestroysTheUnhealthy() throws Exception {
        Set<Res> checked = ConcurrentHashMap.newKeySet();
        Pool<Res> pool = track(builder().minSize(2).maxSize(4).listener(recordDestroys)
                .healthcheckInterval(Duration.ofMillis(2))
                .healthcheck(r -> {
                    checked.add(r); // not its verdict: add is false from the second check on
                    return r.healthy;
                }).build());
        Lease<Res> held = pool.acquire();
        Res inUse = held.resource();
        // Checks made while it was idle were legitimate, and finished before it could be lent.
        checked.clear();
        Res idle = factory.all.stream().filter(r -> r != inUse).findFirst().orElseThrow();
        assertThat(idle).isNotSameAs(inUse);
        eventually("the idle resource is checked", () -> checked.contains(idle));
        idle.healthy = false;
        eventually("the unhealthy resource is destroyed", () -> idle.destroyed.get() == 1);
        eventually("the pool refills to minSize", () -> pool.stats().total() == 2 && pool.stats().idle() == 1);
        assertThat(checked).doesNotContain(inUse);
        assertThat(destroyed).containsExactly(DestroyReason.HEALTHCHECK_FAILED);
        assertThat(inUse.destroyed).hasValue(0);
        held.close();
    }

    @Test
    void aHealthcheckInProgressCountsItsResourceInUse() throws Exception {
        Gate gate = new Gate();
        Pool<Res> pool = track(builder().minSize(1).maxSize(1).healthcheckInterval(Duration.ofMillis(1))
                .healthcheck(r -> {
                    gate.pass();
                    return true;
                }).build());
        gate.awaitEntered();
        assertCounts(pool, 1, 0, 1, 0);
        assertThat(pool.tryAcquire()).isEmpty();
        gate.open();
        eventually("the checked resource is back", () -> pool.stats().idle() == 1);
    }

    @Test
    void aDestroyIsRefilledToMinSizeInTheBackground() throws Exception {
        Pool<Res> pool = track(builder().minSize(2).maxSize(4).build());
        assertThat(factory.created).hasValue(2);
        String caller = Thread.currentThread().getName();
        Lease<Res> lease = pool.acquire();
        startVoid(lease::invalidate).join();
        // idle, not total: the refill's slot counts from its reservation, before its create returns
        eventually("the pool refills to minSize", () -> pool.stats().idle() == 2);
        Res refill = factory.all.get(2);
        assertThat(refill.createdBy).startsWith("loompool-housekeeper-").isNotEqualTo(caller);
        assertCounts(pool, 2, 2, 0, 0);
    }

    @Test
    void listenersHearTheLifeOfAResource() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        Pool<Res> pool = track(builder().maxSize(1).listener(new PoolListener() {
            @Override
            public void onCreated(long createNanos) {
                events.add("created");
            }

            @Override
            public void onAcquired(long waitNanos) {
                events.add("acquired");
            }

            @Override
            public void onReleased(long useNanos) {
                events.add("released " + useNanos);
            }

            @Override
            public void onDestroyed(DestroyReason reason) {
                events.add("destroyed " + reason);
            }

            @Override
            public void onCreationFailed(Throwable error) {
                events.add("creation failed " + error.getMessage());
            }
        }).build());
        Lease<Res> lease = pool.acquire();
        clock.advance(Duration.ofNanos(42));
        lease.invalidate();
        factory.failNext(new IllegalStateException("down"));
        start(pool::tryAcquire).failure();
        assertThat(events).containsExactly("created", "acquired", "released 42", "destroyed INVALIDATED",
                "creation failed down");
    }

    @Test
    void aCallersFailedCreateIsAFailedAcquireAndABackgroundRefillsIsNot() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        Pool<Res> pool = track(builder().minSize(1).maxSize(1).listener(new PoolListener() {
            @Override
            public void onCreationFailed(Throwable error) {
                events.add("creation failed " + error.getMessage());
            }

            @Override
            public void onAcquireFailed(long waitNanos, Throwable error) {
                events.add("acquire failed " + error.getMessage());
            }
        }).build());
        Lease<Res> lease = pool.acquire();
        factory.failNext(new IllegalStateException("refill"));
        lease.invalidate(); // the background refill fails: nobody waited for it
        eventually("the refill ran", () -> !factory.failuresPending());
        eventually("its slot is free again", () -> pool.stats().total() == 0);
        factory.failNext(new IllegalStateException("caller"));
        start(pool::acquire).failure();
        assertThat(events).containsExactly("creation failed refill", "creation failed caller", "acquire failed caller");
    }

    @Test
    void aListenerThatThrowsDoesNotBreakThePool() throws Exception {
        Pool<Res> pool = track(builder().maxSize(1).listener(new PoolListener() {
            @Override
            public void onAcquired(long waitNanos) {
                throw new IllegalStateException("metrics bug");
            }

            @Override
            public void onReleased(long useNanos) {
                throw new IllegalStateException("metrics bug");
            }
        }).build());
        for (int i = 0; i < 3; i++) {
            startVoid(() -> pool.acquire().close()).join();
        }
        assertCounts(pool, 1, 1, 0, 0);
    }

    @Test
    void anErrorFromTheFactoryInABackgroundRefillFreesTheSlotItReserved() throws Exception {
        Pool<Res> pool = track(builder().minSize(1).maxSize(1).build());
        Lease<Res> lease = pool.acquire();
        factory.failNext(new AssertionError("the factory blew up"));
        lease.invalidate(); // the background refill runs into the Error
        eventually("the refill ran", () -> !factory.failuresPending());
        eventually("its slot is free again", () -> pool.stats().total() == 0);
        try (Lease<Res> again = pool.acquire()) {
            assertThat(again.resource().destroyed).hasValue(0);
        }
    }

    @Test
    void resourcesRejectedBeforeAcquireAreReplacedInTheBackgroundUpToMinSize() throws Exception {
        Pool<Res> pool = track(builder().minSize(2).maxSize(4).beforeAcquire(r -> r.healthy).build());
        assertThat(pool.stats().total()).isEqualTo(2);
        factory.all.forEach(r -> r.healthy = false);
        try (Lease<Res> lease = pool.acquire()) {
            assertThat(lease.resource().healthy).isTrue();
        }
        eventually("the pool refills to minSize", () -> pool.stats().total() == 2 && pool.stats().idle() == 2);
    }
}
