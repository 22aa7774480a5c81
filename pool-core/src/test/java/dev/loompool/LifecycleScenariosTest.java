package dev.loompool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Pre-warm at build and close (DESIGN.md §3, "Builder validation" and "Close"). */
class LifecycleScenariosTest extends ScenarioSupport {

    @Test
    void buildPreWarmsMinSize() {
        Pool<Res> pool = track(builder().minSize(3).maxSize(5).build());
        assertThat(factory.created).hasValue(3);
        assertCounts(pool, 3, 3, 0, 0);
    }

    @Test
    void aFailedPreWarmDestroysWhatItCreatedAndNamesTheCause() {
        AtomicInteger calls = new AtomicInteger();
        IllegalStateException boom = new IllegalStateException("third connect fails");
        PoolBuilder<Res> builder = Pool.<Res>builder(() -> {
            if (calls.incrementAndGet() == 3) {
                throw boom;
            }
            return factory.create();
        }).destructor(factory).minSize(3).name("warm");
        assertThatThrownBy(builder::build).isInstanceOf(PoolException.class).hasCause(boom)
                .hasMessageContaining("'warm'").hasMessageContaining("minSize=3").hasMessageContaining("after 2");
        assertThat(factory.created).hasValue(2);
        assertThat(factory.all).allSatisfy(r -> assertThat(r.destroyed).hasValue(1));
    }

    @Test
    void closeWakesEveryWaiterWithPoolClosed() throws Exception {
        Pool<Res> pool = pool(1);
        Lease<Res> held = pool.acquire();
        Actor<Lease<Res>> first = queued(pool);
        Actor<Lease<Res>> second = queued(pool);
        pool.close();
        assertThat(first.failure()).isInstanceOf(PoolClosedException.class).hasMessageContaining(pool.name());
        assertThat(second.failure()).isInstanceOf(PoolClosedException.class);
        held.close();
    }

    @Test
    void closeDestroysIdleNowAndInUseOnRelease() throws Exception {
        Pool<Res> pool = pool(3);
        Lease<Res> a = pool.acquire();
        Lease<Res> b = pool.acquire();
        Res idle = b.resource();
        b.close();
        pool.close();
        assertThat(pool.isClosed()).isTrue();
        assertThat(idle.destroyed).hasValue(1);
        assertThat(a.resource().destroyed).hasValue(0);
        assertCounts(pool, 1, 0, 1, 0);
        Res res = a.resource();
        startVoid(a::close).join();
        assertThat(res.destroyed).hasValue(1);
        assertCounts(pool, 0, 0, 0, 0);
    }

    @Test
    void closeIsIdempotentAndAcquireAfterItFails() throws Exception {
        Pool<Res> pool = track(builder().minSize(2).build());
        pool.close();
        pool.close();
        assertThat(factory.destroyed).hasValue(2);
        assertThatThrownBy(pool::acquire).isInstanceOf(PoolClosedException.class);
        assertThatThrownBy(pool::tryAcquire).isInstanceOf(PoolClosedException.class);
    }

    @Test
    void closeDestroysEveryIdleResourceAndReportsAllDestructorFailures() {
        AtomicInteger attempts = new AtomicInteger();
        Pool<Res> pool = track(Pool.builder(factory).minSize(3).destructor(r -> {
            attempts.incrementAndGet();
            throw new IllegalStateException("cannot close " + r);
        }).build());
        assertThatThrownBy(pool::close).isInstanceOf(PoolException.class)
                .hasMessageContaining(pool.name())
                .satisfies(e -> {
                    assertThat(e.getCause()).isInstanceOf(IllegalStateException.class);
                    assertThat(e.getSuppressed()).hasSize(2);
                });
        assertThat(attempts).hasValue(3);
        assertCounts(pool, 0, 0, 0, 0);
    }

    @Test
    void aResourceCreatedWhileThePoolClosesIsDestroyed() throws Exception {
        Pool<Res> pool = pool(1);
        Gate gate = new Gate();
        factory.gate = gate;
        Actor<Lease<Res>> creator = start(pool::acquire);
        gate.awaitEntered();
        pool.close();
        gate.open();
        assertThat(creator.failure()).isInstanceOf(PoolClosedException.class);
        assertThat(factory.all).singleElement().satisfies(r -> assertThat(r.destroyed).hasValue(1));
        assertCounts(pool, 0, 0, 0, 0);
    }
}
