package dev.loompool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.engine.DirectPool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The sizes of a running pool change (DESIGN.md §4, the limits that change at run time): a lower
 * maxSize closes the surplus idle resources at once and retires lent ones as they come back, never
 * handing their slots on while the pool is over its size; a higher one serves waiters at once.
 */
class ResizeScenariosTest extends ScenarioSupport {

    private final List<DestroyReason> destroyed = new CopyOnWriteArrayList<>();

    private DirectPool<Res> pool(int minSize, int maxSize) {
        return (DirectPool<Res>) track(builder().minSize(minSize).maxSize(maxSize).listener(new PoolListener() {
            @Override
            public void onDestroyed(DestroyReason reason) {
                destroyed.add(reason);
            }
        }).build());
    }

    private static List<Lease<Res>> acquire(Pool<Res> pool, int n) throws InterruptedException {
        List<Lease<Res>> leases = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            leases.add(pool.acquire());
        }
        return leases;
    }

    @Test
    void aLowerMaxSizeClosesTheSurplusIdleResourcesAtOnce() throws Exception {
        DirectPool<Res> pool = pool(0, 6);
        acquire(pool, 6).forEach(Lease::close);
        assertCounts(pool, 6, 6, 0, 0);
        pool.resize(0, 2);
        assertCounts(pool, 2, 2, 0, 0);
        assertThat(factory.destroyed).hasValue(4);
        assertThat(destroyed).containsOnly(DestroyReason.POOL_SHRUNK).hasSize(4);
        assertThat(pool.stats().maxSize()).isEqualTo(2);
    }

    @Test
    void aLowerMaxSizeRetiresLentResourcesAsTheyComeBackAndHandsNoSlotOnMeanwhile() throws Exception {
        DirectPool<Res> pool = pool(0, 4);
        List<Lease<Res>> lent = acquire(pool, 4);
        pool.resize(0, 2);
        assertCounts(pool, 4, 0, 4, 0);
        Actor<Lease<Res>> waiter = queued(pool);
        lent.get(0).close(); // surplus: destroyed, and its slot not handed to the waiter
        lent.get(1).close();
        assertCounts(pool, 2, 0, 2, 1);
        assertThat(destroyed).containsExactly(DestroyReason.POOL_SHRUNK, DestroyReason.POOL_SHRUNK);
        Res third = lent.get(2).resource();
        lent.get(2).close(); // within maxSize now: the waiter gets it
        Lease<Res> served = waiter.join();
        assertThat(served.resource()).isSameAs(third);
        assertCounts(pool, 2, 0, 2, 0);
        served.close();
        lent.get(3).close();
        assertCounts(pool, 2, 2, 0, 0);
        assertThat(factory.created).hasValue(4);
    }

    @Test
    void aHigherMaxSizeServesTheWaitersAtOnce() throws Exception {
        DirectPool<Res> pool = pool(0, 1);
        Lease<Res> only = pool.acquire();
        Actor<Lease<Res>> first = queued(pool);
        Actor<Lease<Res>> second = queued(pool);
        pool.resize(0, 3);
        Lease<Res> a = first.join();
        Lease<Res> b = second.join();
        assertCounts(pool, 3, 0, 3, 0);
        assertThat(factory.created).hasValue(3);
        a.close();
        b.close();
        only.close();
        assertThat(destroyed).isEmpty();
    }

    @Test
    void aHigherMinSizeIsFilledInTheBackground() throws Exception {
        DirectPool<Res> pool = pool(1, 5);
        assertCounts(pool, 1, 1, 0, 0);
        pool.resize(3, 5);
        eventually("the pool fills to the new minSize", () -> pool.stats().total() == 3);
        assertThat(pool.stats().minSize()).isEqualTo(3);
    }

    @Test
    void sizesOutOfOrderAreRefusedAndLeaveThePoolAsItWas() throws Exception {
        DirectPool<Res> pool = pool(0, 3);
        assertThatThrownBy(() -> pool.resize(4, 3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("minSize=4, maxSize=3");
        assertThatThrownBy(() -> pool.resize(0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(pool.stats().maxSize()).isEqualTo(3);
    }

    @Test
    void aShorterAcquireTimeoutAppliesToTheNextAcquire() throws Exception {
        DirectPool<Res> pool = pool(0, 1);
        Lease<Res> only = pool.acquire();
        pool.acquireTimeout(Duration.ZERO);
        assertThatThrownBy(pool::acquire).isInstanceOf(AcquireTimeoutException.class);
        only.close();
    }

    @Test
    void aClosedPoolIgnoresAResize() throws Exception {
        DirectPool<Res> pool = pool(0, 2);
        pool.close();
        pool.resize(0, 1);
        assertThat(pool.isClosed()).isTrue();
    }
}
