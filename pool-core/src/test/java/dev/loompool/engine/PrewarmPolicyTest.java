package dev.loompool.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.CircuitBreakerState;
import dev.loompool.CircuitBreakerStrategy;
import dev.loompool.Pool;
import dev.loompool.PoolException;
import dev.loompool.ResourceFactory;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** The generic start under a factory's {@link PrewarmPolicy}: what the JDBC layer's initializationFailTimeout rides on. */
class PrewarmPolicyTest {

    /** A factory that fails while {@link #down} is set, with the policy {@code timeout}. */
    private static final class Backend implements ResourceFactory<Object>, PrewarmPolicy {
        final AtomicBoolean down = new AtomicBoolean(true);
        final AtomicInteger creates = new AtomicInteger();
        final AtomicInteger startedShort = new AtomicInteger(-1);
        private final Duration timeout;

        Backend(Duration timeout) {
            this.timeout = timeout;
        }

        @Override
        public Object create() throws Exception {
            creates.incrementAndGet();
            if (down.get()) {
                throw new java.io.IOException("backend down");
            }
            return new Object();
        }

        @Override
        public Duration prewarmFailTimeout() {
            return timeout;
        }

        @Override
        public void startedShort(int made, Throwable cause) {
            startedShort.set(made);
        }
    }

    @Test
    void aFactoryWithoutAPolicyFailsTheBuildAtTheFirstFailureAsBefore() {
        AtomicInteger creates = new AtomicInteger();
        assertThatThrownBy(() -> Pool.builder(() -> {
            creates.incrementAndGet();
            throw new java.io.IOException("down");
        }).minSize(2).build()).isInstanceOf(PoolException.class).hasMessageContaining("could not pre-warm minSize=2");
        assertThat(creates.get()).isEqualTo(1);
    }

    @Test
    void aNegativePolicyBuildsShortAndFillsInTheBackgroundOnceTheBackendAnswers() {
        Backend backend = new Backend(Duration.ofMillis(-1));
        try (Pool<Object> pool = Pool.builder(backend).minSize(2).maxSize(4)
                .circuitBreakerStrategy(CircuitBreakerStrategy.consecutiveFailures(2, Duration.ofHours(1))).build()) {
            assertThat(backend.startedShort.get()).as("told, with nothing made").isZero();
            eventually("the background failures open the breaker", () -> pool.state() == CircuitBreakerState.INACTIVE);
            backend.down.set(false);
            eventually("filled to minSize", () -> pool.stats().idle() == 2);
            assertThat(pool.state()).as("its success closed the breaker it opened, with nobody asking")
                    .isEqualTo(CircuitBreakerState.ACTIVE);
        }
    }

    @Test
    void aBreakerHeldOpenByHandStaysOpenWhenTheBackgroundConnects() {
        Backend backend = new Backend(Duration.ofMillis(-1));
        try (Pool<Object> pool = Pool.builder(backend).minSize(1)
                .circuitBreakerStrategy(CircuitBreakerStrategy.consecutiveFailures(5, Duration.ofHours(1))).build()) {
            pool.deactivate();
            backend.down.set(false);
            eventually("filled to minSize", () -> pool.stats().idle() == 1);
            assertThat(pool.state()).isEqualTo(CircuitBreakerState.INACTIVE);
        }
    }

    @Test
    void theBackgroundStopsWhenThePoolCloses() {
        Backend backend = new Backend(Duration.ofMillis(-1));
        Pool<Object> pool = Pool.builder(backend).minSize(1).build();
        eventually("a background attempt", () -> backend.creates.get() >= 2);
        pool.close();
        int after = backend.creates.get();
        // close waits for an attempt under way and cancels the next: none may come in the time the
        // next two back-offs would have taken
        LockSupport.parkNanos(Duration.ofMillis(1600).toNanos());
        assertThat(backend.creates.get()).as("no attempt after close").isEqualTo(after);
    }

    private static void eventually(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting until " + what);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }
}
