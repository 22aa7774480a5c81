package dev.loompool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Leases, accounting and the acquire algorithm (DESIGN.md §3, "Acquire order" and "Accounting"). */
class AcquireReleaseScenariosTest extends ScenarioSupport {

    @Test
    void aReleasedResourceIsLentAgainInsteadOfCreatingANewOne() throws Exception {
        Pool<Res> pool = pool(4);
        Action<Res> borrowAndReturn = () -> {
            try (Lease<Res> lease = pool.acquire()) {
                return lease.resource();
            }
        };
        Res first = start(borrowAndReturn).join();
        Res second = start(borrowAndReturn).join();
        assertThat(second).isSameAs(first);
        assertThat(factory.created).hasValue(1);
        assertCounts(pool, 1, 1, 0, 0);
    }

    @Test
    void idleResourcesAreLentMostRecentlyReturnedFirst() throws Exception {
        Pool<Res> pool = pool(4);
        Lease<Res> a = pool.acquire();
        Lease<Res> b = pool.acquire();
        Res resA = a.resource();
        Res resB = b.resource();
        b.close();
        a.close();
        try (Lease<Res> next = pool.acquire()) {
            assertThat(next.resource()).isSameAs(resA);
        }
        assertThat(resB.destroyed).hasValue(0);
    }

    @Test
    void thePoolNeverCreatesMoreThanMaxSize() throws Exception {
        Pool<Res> pool = pool(2);
        Lease<Res> a = pool.acquire();
        Lease<Res> b = pool.acquire();
        assertThat(pool.tryAcquire()).isEmpty();
        assertThatThrownBy(() -> pool.acquire(Duration.ZERO)).isInstanceOf(AcquireTimeoutException.class);
        assertThat(factory.created).hasValue(2);
        assertCounts(pool, 2, 0, 2, 0);
        a.close();
        b.close();
        assertCounts(pool, 2, 2, 0, 0);
    }

    @Test
    void closingALeaseTwiceReleasesItOnce() throws Exception {
        Pool<Res> pool = pool(1);
        Lease<Res> lease = pool.acquire();
        lease.close();
        Lease<Res> next = pool.acquire();
        lease.close(); // stale: must not release the next holder's resource
        lease.invalidate();
        assertCounts(pool, 1, 0, 1, 0);
        assertThat(next.resource().destroyed).hasValue(0);
        next.close();
        assertCounts(pool, 1, 1, 0, 0);
    }

    @Test
    void everyAcquireGetsAFreshLease() throws Exception {
        Pool<Res> pool = pool(1);
        Lease<Res> first = pool.acquire();
        first.close();
        Lease<Res> second = pool.acquire();
        assertThat(second).isNotSameAs(first);
        assertThatThrownBy(first::resource).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("RELEASED");
        assertThat(second.resource()).isNotNull();
        second.close();
    }

    @Test
    void invalidateDestroysTheResourceOnceAndIsIdempotent() throws Exception {
        Pool<Res> pool = pool(2);
        Lease<Res> lease = pool.acquire();
        Res res = lease.resource();
        lease.invalidate();
        lease.invalidate();
        lease.close();
        assertThat(res.destroyed).hasValue(1);
        assertCounts(pool, 0, 0, 0, 0);
        assertThatThrownBy(lease::resource).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void tryAcquireCreatesWhenThereIsRoomAndNeverWaits() throws Exception {
        Pool<Res> pool = pool(1);
        Optional<Lease<Res>> lease = start(pool::tryAcquire).join();
        assertThat(lease).isPresent();
        assertThat(start(pool::tryAcquire).join()).isEmpty();
        lease.get().close();
        assertThat(pool.tryAcquire()).isPresent();
    }

    @Test
    void theFactoryRunsOnASlotAlreadyCountedInUse() throws Exception {
        Pool<Res> pool = pool(1);
        Gate gate = new Gate();
        factory.gate = gate;
        Actor<Lease<Res>> creator = start(pool::acquire);
        gate.awaitEntered();
        assertCounts(pool, 1, 0, 1, 0);
        assertThat(pool.tryAcquire()).isEmpty();
        factory.gate = null;
        gate.open();
        creator.join().close();
        assertCounts(pool, 1, 1, 0, 0);
    }

    @Test
    void aFactoryFailureReachesTheCallerAndFreesTheSlot() throws Exception {
        Pool<Res> pool = pool(1);
        IllegalStateException boom = new IllegalStateException("connect refused");
        factory.failNext(boom);
        Throwable failure = start(pool::acquire).failure();
        assertThat(failure).isExactlyInstanceOf(PoolException.class).hasCause(boom)
                .hasMessageContaining(pool.name()).hasMessageContaining("total=0");
        assertCounts(pool, 0, 0, 0, 0);
        try (Lease<Res> lease = pool.acquire()) {
            assertThat(lease.resource().id).isEqualTo(1);
        }
    }

    @Test
    void aFactoryReturningNullIsAFailureNotALease() throws Exception {
        Pool<Res> pool = track(Pool.<Res>builder(() -> null).maxSize(1).build());
        assertThatThrownBy(pool::acquire).isInstanceOf(PoolException.class)
                .hasCauseInstanceOf(NullPointerException.class);
        assertCounts(pool, 0, 0, 0, 0);
    }

    @Test
    void aFactoryFailureHandsTheFreedSlotToTheNextWaiter() throws Exception {
        Pool<Res> pool = pool(1);
        Gate gate = new Gate();
        factory.gate = gate;
        factory.failNext(new IllegalStateException("first connect fails"));
        Actor<Lease<Res>> first = start(pool::acquire);
        gate.awaitEntered();
        factory.gate = null;
        Actor<Lease<Res>> second = start(pool::acquire);
        awaitPending(pool, 1);
        gate.open();
        assertThat(first.failure()).isInstanceOf(PoolException.class).hasRootCauseMessage("first connect fails");
        Lease<Res> lease = second.join();
        assertThat(lease.resource().id).isEqualTo(1);
        assertCounts(pool, 1, 0, 1, 0);
        lease.close();
    }

    @Test
    void timingOutReportsThePoolAndItsCounts() throws Exception {
        Pool<Res> pool = track(builder().name("orders").maxSize(1).build());
        Lease<Res> held = pool.acquire();
        Actor<Lease<Res>> waiter = queued(pool, Duration.ofSeconds(5));
        clock.advance(Duration.ofSeconds(5));
        waiter.unpark();
        Throwable failure = waiter.failure();
        assertThat(failure).isInstanceOf(AcquireTimeoutException.class)
                .hasMessageContaining("'orders'").hasMessageContaining("5000 ms")
                .hasMessageContaining("total=1, idle=0, inUse=1, pending=0");
        assertThat(((AcquireTimeoutException) failure).stats().maxSize()).isEqualTo(1);
        assertCounts(pool, 1, 0, 1, 0);
        held.close();
    }

    @Test
    void aWakeupBeforeTheDeadlineKeepsWaiting() throws Exception {
        Pool<Res> pool = pool(1);
        Lease<Res> held = pool.acquire();
        Actor<Lease<Res>> waiter = queued(pool, Duration.ofSeconds(5));
        clock.advance(Duration.ofSeconds(4));
        waiter.unpark(); // a spurious wakeup: the waiter must go back to sleep
        awaitPending(pool, 1);
        assertThat(waiter.isDone()).isFalse();
        held.close();
        waiter.join().close();
    }

    @Test
    void acquireUsesTheConfiguredTimeout() throws Exception {
        Pool<Res> pool = track(builder().maxSize(1).acquireTimeout(Duration.ofMillis(1500)).build());
        Lease<Res> held = pool.acquire();
        Actor<Lease<Res>> waiter = start(pool::acquire);
        awaitPending(pool, 1);
        clock.advance(Duration.ofMillis(1500));
        waiter.unpark();
        assertThat(waiter.failure()).isInstanceOf(AcquireTimeoutException.class).hasMessageContaining("1500 ms");
        held.close();
    }

    @Test
    void aNegativeTimeoutIsRefused() {
        Pool<Res> pool = pool(1);
        assertThatThrownBy(() -> pool.acquire(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
    }
}
