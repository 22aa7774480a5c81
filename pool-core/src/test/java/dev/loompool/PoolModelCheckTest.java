package dev.loompool;

import static dev.loompool.ModelCheck.check;
import static dev.loompool.ModelCheck.runActors;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/**
 * The generic pool's acquire, release, invalidate, close and breaker, model-checked (DESIGN.md §6):
 * Lincheck enumerates the interleavings of two or three threads acting on one small pool, each
 * scenario a few operations per thread, and checks after every operation and once all are done:
 * <ul>
 *   <li>the accounts: {@code total = idle + inUse <= maxSize}, never negative;</li>
 *   <li>no resource is lent to two leases at once, and no destroyed resource is lent;</li>
 *   <li>a closed pool refuses {@code tryAcquire}; {@code close} wakes a waiter (with
 *       {@link PoolClosedException}) and {@code deactivate} wakes one (with
 *       {@link ServiceUnavailableException}) — a waiter nobody wakes is reported as a hang, since
 *       the pool's clock is frozen and no acquire ever times out;</li>
 *   <li>no slot is lost: once every thread is done and the pool closed, it counts nothing, and
 *       every resource it made was destroyed exactly once (one released after the close too).</li>
 * </ul>
 * Each scenario's invocation count is small so that the class runs in well under a minute.
 */
@EnabledForJreRange(max = JRE.JAVA_21, disabledReason = "Lincheck 3.7 on JDK 25: every scenario reports"
        + " 'Concurrent test has hung' with no reproducible interleaving, at 3-4x the JDK 17 run time")
class PoolModelCheckTest {

    /** Interleavings tried per scenario: enough to reach each scenario's races, few enough for CI. */
    private static final int INVOCATIONS = 50;

    /** One invocation's pool and what the scenario knows about its resources. */
    private static final class World {

        final AtomicInteger created = new AtomicInteger();
        final List<Res> made = new CopyOnWriteArrayList<>();
        final Set<Res> inHand = ConcurrentHashMap.newKeySet();
        final Pool<Res> pool;

        World(int maxSize) {
            pool = Pool.builder(this::create)
                    .destructor(r -> r.destroyed.incrementAndGet())
                    .minSize(0).maxSize(maxSize)
                    .clock(() -> 1_000_000_000L) // frozen: a waiter returns only when something reaches it
                    .acquireTimeout(Duration.ofSeconds(1))
                    .name("model-check")
                    .build();
        }

        private Res create() {
            Res r = new Res(created.incrementAndGet());
            made.add(r);
            return r;
        }

        /** A lease if one was free, else empty; also empty if the pool is closed or its circuit open. */
        Optional<Lease<Res>> tryAcquire() {
            try {
                return pool.tryAcquire().map(this::lent);
            } catch (PoolClosedException | ServiceUnavailableException refused) {
                return Optional.empty();
            }
        }

        Lease<Res> lent(Lease<Res> lease) {
            Res r = lease.resource();
            if (!inHand.add(r)) {
                throw new AssertionError(r + " lent to two leases at once");
            }
            if (r.destroyed.get() != 0) {
                throw new AssertionError(r + " lent after it was destroyed");
            }
            checkAccounts();
            return lease;
        }

        void release(Lease<Res> lease) {
            inHand.remove(lease.resource());
            lease.close();
            checkAccounts();
        }

        void invalidate(Lease<Res> lease) {
            inHand.remove(lease.resource());
            lease.invalidate();
            checkAccounts();
        }

        void checkAccounts() {
            PoolStats s = pool.stats();
            if (s.total() != s.idle() + s.inUse() || s.total() > s.maxSize() || s.idle() < 0 || s.inUse() < 0) {
                throw new AssertionError("the accounts do not add up: " + s);
            }
        }

        /** Once every thread is done and the pool closed: nothing counted, everything destroyed once. */
        void checkNothingLeftAfterClose() {
            check(pool.isClosed(), "the pool is closed");
            PoolStats s = pool.stats();
            check(s.total() == 0 && s.idle() == 0 && s.inUse() == 0 && s.pending() == 0,
                    "a closed pool with every lease released counts nothing: " + s);
            for (Res r : made) {
                check(r.destroyed.get() == 1, r + " destroyed once, not " + r.destroyed.get() + " times");
            }
        }
    }

    @Test
    void leasesNeverShareAResourceAndEverySlotComesBackAfterCloseAndBreakerFlips() {
        ModelCheck.run(INVOCATIONS, () -> {
            World w = new World(2);
            runActors(
                    () -> {
                        w.tryAcquire().ifPresent(w::invalidate);
                        w.tryAcquire().ifPresent(w::release);
                    },
                    () -> {
                        w.tryAcquire().ifPresent(w::release);
                        w.pool.close();
                        ModelCheck.expect(PoolClosedException.class, w.pool::tryAcquire);
                    },
                    () -> {
                        w.pool.deactivate();
                        w.pool.activate();
                    });
            w.checkNothingLeftAfterClose();
        });
    }

    @Test
    void closeWakesAWaiterAndDestroysTheResourceReleasedAfterIt() {
        ModelCheck.run(INVOCATIONS, () -> {
            World w = new World(1);
            Lease<Res> held = w.lent(w.pool.tryAcquire().orElseThrow());
            runActors(
                    () -> ModelCheck.expect(PoolClosedException.class, () -> w.pool.acquire(Duration.ofSeconds(1))),
                    () -> {
                        w.pool.close();
                        w.release(held);
                    });
            w.checkNothingLeftAfterClose();
        });
    }

    @Test
    void deactivateWakesAWaiterAndActivateServesAgain() {
        ModelCheck.run(INVOCATIONS, () -> {
            World w = new World(1);
            Lease<Res> held = w.lent(w.pool.tryAcquire().orElseThrow());
            AtomicReference<String> waiter = new AtomicReference<>();
            runActors(
                    () -> {
                        try {
                            w.release(w.lent(w.pool.acquire(Duration.ofSeconds(1))));
                            waiter.set("served");
                        } catch (ServiceUnavailableException e) {
                            waiter.set("refused");
                        }
                    },
                    () -> {
                        w.pool.deactivate();
                        w.release(held);
                        w.pool.activate();
                    });
            check(waiter.get() != null, "the waiter was served or refused");
            PoolStats s = w.pool.stats();
            check(s.inUse() == 0 && s.total() == 1, "one idle resource once all are released: " + s);
            w.release(w.tryAcquire().orElseThrow(() -> new AssertionError("activated, but refused: " + s)));
            w.pool.close();
            w.checkNothingLeftAfterClose();
        });
    }

    @Test
    void anInvalidatedLeaseHandsItsSlotToTheWaiter() {
        ModelCheck.run(INVOCATIONS, () -> {
            World w = new World(1);
            Lease<Res> held = w.lent(w.pool.tryAcquire().orElseThrow());
            runActors(
                    () -> w.release(w.lent(w.pool.acquire(Duration.ofSeconds(1)))),
                    () -> w.invalidate(held));
            PoolStats s = w.pool.stats();
            check(s.total() == 1 && s.idle() == 1, "the waiter's new resource is idle once it is done: " + s);
            check(w.created.get() == 2, "one resource made for the waiter, not " + (w.created.get() - 1));
            w.pool.close();
            w.checkNothingLeftAfterClose();
        });
    }
}
