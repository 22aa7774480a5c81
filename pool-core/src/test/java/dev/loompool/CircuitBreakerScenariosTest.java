package dev.loompool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Manual transitions and the built-in consecutiveFailures strategy (DESIGN.md §3, "Circuit breaker"). */
class CircuitBreakerScenariosTest extends ScenarioSupport {

    private static final Duration OPEN = Duration.ofSeconds(10);
    private static final Duration FIRST_WAIT = OPEN.dividedBy(64);

    private final List<String> transitions = new CopyOnWriteArrayList<>();
    private final List<CircuitBreakerState> rejections = new CopyOnWriteArrayList<>();
    private final PoolListener recorder = new PoolListener() {
        @Override
        public void onStateChanged(CircuitBreakerState from, CircuitBreakerState to) {
            transitions.add(from + "->" + to);
        }

        @Override
        public void onRejected(CircuitBreakerState state) {
            rejections.add(state);
        }
    };

    private Pool<Res> breakerPool(int maxSize, int threshold) {
        return track(builder().maxSize(maxSize).listener(recorder)
                .circuitBreakerStrategy(CircuitBreakerStrategy.consecutiveFailures(threshold, OPEN, clock))
                .build());
    }

    @Test
    void anInactiveCircuitFailsFastWithTheCounts() throws Exception {
        Pool<Res> pool = track(builder().name("db").maxSize(2).listener(recorder).build());
        pool.deactivate();
        assertThat(pool.state()).isEqualTo(CircuitBreakerState.INACTIVE);
        Throwable failure = start(pool::acquire).failure();
        assertThat(failure).isInstanceOf(ServiceUnavailableException.class)
                .hasMessageContaining("'db'").hasMessageContaining("INACTIVE").hasMessageContaining("total=0");
        assertThat(((ServiceUnavailableException) failure).stats().maxSize()).isEqualTo(2);
        assertThatThrownBy(pool::tryAcquire).isInstanceOf(ServiceUnavailableException.class);
        assertThat(factory.created).hasValue(0);
        assertThat(rejections).containsExactly(CircuitBreakerState.INACTIVE, CircuitBreakerState.INACTIVE);
        pool.activate();
        pool.acquire().close();
        assertThat(transitions).containsExactly("ACTIVE->INACTIVE", "INACTIVE->ACTIVE");
    }

    @Test
    void theStrategysOpeningIsNeverTakenForAHandHoldWhileAnotherFailureIsReportedBeside() throws Exception {
        // The first failure's report opens the circuit, but only after a second report has come and gone.
        java.util.concurrent.CountDownLatch firstInside = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch secondDone = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger reports = new java.util.concurrent.atomic.AtomicInteger();
        CircuitBreakerStrategy opensLate = new CircuitBreakerStrategy() {
            @Override
            public void reportSuccess(Pool<?> pool) {
            }

            @Override
            public void reportFailure(Pool<?> pool, Throwable error) {
                if (reports.incrementAndGet() == 1) {
                    firstInside.countDown();
                    try {
                        secondDone.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    pool.deactivate();
                } else {
                    secondDone.countDown();
                }
            }
        };
        Pool<Res> pool = track(builder().maxSize(2).circuitBreakerStrategy(opensLate).build());
        factory.failNext(new java.io.IOException("refused")).failNext(new java.io.IOException("refused"));
        Actor<Lease<Res>> first = start(pool::acquire);
        firstInside.await();
        Actor<Lease<Res>> second = start(pool::acquire);
        assertThat(first.failure()).isNotNull();
        assertThat(second.failure()).isNotNull();
        assertThat(pool.state()).isEqualTo(CircuitBreakerState.INACTIVE);
        assertThatThrownBy(pool::tryAcquire).isInstanceOfSatisfying(ServiceUnavailableException.class,
                e -> assertThat(e.heldByHand()).as("opened by the strategy, after failures").isFalse());
        pool.activate();
        pool.deactivate();
        assertThatThrownBy(pool::tryAcquire).isInstanceOfSatisfying(ServiceUnavailableException.class,
                e -> assertThat(e.heldByHand()).isTrue());
    }

    @Test
    void deactivateWakesTheWaitersWithServiceUnavailable() throws Exception {
        Pool<Res> pool = pool(1);
        Lease<Res> held = pool.acquire();
        Actor<Lease<Res>> first = queued(pool);
        Actor<Lease<Res>> second = queued(pool);
        pool.deactivate();
        assertThat(first.failure()).isInstanceOf(ServiceUnavailableException.class);
        assertThat(second.failure()).isInstanceOf(ServiceUnavailableException.class);
        assertCounts(pool, 1, 0, 1, 0);
        held.close();
        assertCounts(pool, 1, 1, 0, 0);
    }

    @Test
    void recoveringLetsOneProbeThroughAtATime() throws Exception {
        Pool<Res> pool = pool(3);
        pool.recover();
        Gate gate = new Gate();
        factory.gate = gate;
        Actor<Lease<Res>> probe = start(pool::acquire); // its create waits at the gate
        gate.awaitEntered();
        assertThatThrownBy(pool::acquire).isInstanceOf(ServiceUnavailableException.class)
                .hasMessageContaining("RECOVERING");
        gate.open();
        Lease<Res> first = probe.join();
        Lease<Res> next = start(pool::acquire).join(); // the first probe has its verdict: the next may go
        assertThat(pool.state()).as("without a strategy nobody closes the circuit").isEqualTo(CircuitBreakerState.RECOVERING);
        first.close();
        next.close();
    }

    @Test
    void aProbeThatTimesOutFreesTheProbeSlot() throws Exception {
        Pool<Res> pool = pool(1);
        Lease<Res> held = pool.acquire();
        pool.recover();
        assertThatThrownBy(() -> pool.acquire(Duration.ZERO)).isInstanceOf(AcquireTimeoutException.class);
        held.close();
        start(pool::acquire).join().close();
    }

    @Test
    void consecutiveFailuresOpenTheCircuit() throws Exception {
        Pool<Res> pool = breakerPool(2, 3);
        factory.failNext(new IllegalStateException("1")).failNext(new IllegalStateException("2"));
        start(pool::acquire).failure();
        start(pool::acquire).failure();
        pool.acquire().close(); // a success resets the count
        assertThat(pool.state()).isEqualTo(CircuitBreakerState.ACTIVE);
        for (int i = 0; i < 3; i++) {
            factory.failNext(new IllegalStateException("down"));
        }
        Lease<Res> held = pool.acquire(); // takes the idle one: the failures below are all factory's
        for (int i = 0; i < 3; i++) {
            assertThat(start(pool::acquire).failure()).isExactlyInstanceOf(PoolException.class);
        }
        assertThat(pool.state()).isEqualTo(CircuitBreakerState.INACTIVE);
        int created = factory.created.get();
        assertThat(start(pool::acquire).failure()).isInstanceOf(ServiceUnavailableException.class);
        assertThat(factory.created).as("no connect attempt while open").hasValue(created);
        held.close();
        assertThat(pool.state()).as("an old lease's success does not close the circuit").isEqualTo(CircuitBreakerState.INACTIVE);
    }

    @Test
    void aSixteenthOfTheOpenDurationAfterOpeningOneProbeClosesTheCircuit() throws Exception {
        Pool<Res> pool = breakerPool(2, 1);
        factory.failNext(new IllegalStateException("down"));
        start(pool::acquire).failure();
        assertThat(pool.state()).isEqualTo(CircuitBreakerState.INACTIVE);
        clock.advance(FIRST_WAIT.minusMillis(1));
        assertThatThrownBy(pool::acquire).isInstanceOf(ServiceUnavailableException.class);
        clock.advance(Duration.ofMillis(1));
        Gate gate = new Gate();
        factory.gate = gate;
        Actor<Lease<Res>> probe = start(pool::acquire);
        gate.awaitEntered();
        assertThat(pool.state()).isEqualTo(CircuitBreakerState.RECOVERING);
        assertThat(start(pool::acquire).failure()).as("a second request while the probe connects")
                .isInstanceOf(ServiceUnavailableException.class);
        gate.open();
        Lease<Res> held = probe.join();
        assertThat(pool.state()).as("closed by the probe's connect, not its release").isEqualTo(CircuitBreakerState.ACTIVE);
        assertThat(transitions).containsExactly("ACTIVE->INACTIVE", "INACTIVE->RECOVERING", "RECOVERING->ACTIVE");
        start(pool::acquire).join().close();
        held.close();
    }

    @Test
    void eachFailedProbeDoublesTheWaitUpToTheOpenDuration() throws Exception {
        Pool<Res> pool = breakerPool(2, 1);
        factory.failNext(new IllegalStateException("down"));
        start(pool::acquire).failure();
        // 10 s / 64 = 156.25 ms, then 312.5 ms, 625 ms, 1.25 s, 2.5 s, 5 s, and 10 s from there on.
        List<Duration> waits = List.of(FIRST_WAIT, FIRST_WAIT.multipliedBy(2), FIRST_WAIT.multipliedBy(4),
                FIRST_WAIT.multipliedBy(8), FIRST_WAIT.multipliedBy(16), FIRST_WAIT.multipliedBy(32), OPEN, OPEN);
        for (Duration wait : waits) {
            int created = factory.created.get();
            clock.advance(wait.minusMillis(1));
            assertThatThrownBy(pool::acquire).as("1 ms before the end of a %s wait", wait)
                    .isInstanceOf(ServiceUnavailableException.class);
            assertThat(factory.created).as("no connect attempt while open").hasValue(created);
            clock.advance(Duration.ofMillis(1));
            factory.failNext(new IllegalStateException("still down"));
            assertThat(start(pool::acquire).failure()).as("the probe after %s", wait)
                    .isExactlyInstanceOf(PoolException.class).hasRootCauseMessage("still down");
            assertThat(pool.state()).isEqualTo(CircuitBreakerState.INACTIVE);
        }
        clock.advance(OPEN);
        start(pool::acquire).join().close();
        assertThat(pool.state()).isEqualTo(CircuitBreakerState.ACTIVE);

        factory.failNext(new IllegalStateException("down again"));
        Lease<Res> held = pool.acquire(); // the idle one: the next acquire must create
        start(pool::acquire).failure();
        assertThat(pool.state()).isEqualTo(CircuitBreakerState.INACTIVE);
        clock.advance(FIRST_WAIT);
        start(pool::acquire).join().close();
        assertThat(pool.state()).as("a success starts the back-off over").isEqualTo(CircuitBreakerState.ACTIVE);
        held.close();
    }

    @Test
    void rejectedReleasesAndInvalidationsCountAsFailures() throws Exception {
        Pool<Res> pool = track(builder().maxSize(2).beforeRelease(r -> r.healthy)
                .circuitBreakerStrategy(CircuitBreakerStrategy.consecutiveFailures(2, OPEN, clock)).build());
        Lease<Res> lease = pool.acquire();
        lease.resource().healthy = false;
        lease.close();
        start(pool::acquire).join().invalidate();
        assertThat(pool.state()).isEqualTo(CircuitBreakerState.INACTIVE);
    }

    @Test
    void aManualDeactivateIsNotUndoneByTheStrategy() throws Exception {
        Pool<Res> pool = breakerPool(2, 1);
        pool.deactivate();
        clock.advance(OPEN.multipliedBy(3));
        assertThatThrownBy(pool::acquire).as("only the strategy's own openings end by themselves").isInstanceOf(ServiceUnavailableException.class);
        assertThat(pool.state()).isEqualTo(CircuitBreakerState.INACTIVE);
    }

    @Test
    void aHandDeactivateWhileTheStrategyHasItOpenHoldsItUntilSetByHand() throws Exception {
        Pool<Res> pool = breakerPool(2, 1);
        factory.failNext(new IllegalStateException("down"));
        start(pool::acquire).failure();
        assertThat(pool.state()).isEqualTo(CircuitBreakerState.INACTIVE);
        pool.deactivate(); // already INACTIVE, by the strategy: now a hold by hand
        assertThatThrownBy(pool::tryAcquire).isInstanceOfSatisfying(ServiceUnavailableException.class,
                e -> assertThat(e.heldByHand()).isTrue());
        int created = factory.created.get();
        clock.advance(OPEN.multipliedBy(3)); // long past the strategy's first probe
        assertThatThrownBy(pool::acquire).as("the strategy's probe must not end a hold by hand")
                .isInstanceOf(ServiceUnavailableException.class);
        assertThat(factory.created).as("no probe connect").hasValue(created);
        assertThat(pool.state()).isEqualTo(CircuitBreakerState.INACTIVE);
        assertThat(transitions).as("the same state to listeners").containsExactly("ACTIVE->INACTIVE");
        pool.activate();
        pool.acquire().close();
        assertThat(transitions).containsExactly("ACTIVE->INACTIVE", "INACTIVE->ACTIVE");
    }

    @Test
    void aStrategysRecoverRacingAHandDeactivateLeavesTheHold() throws Exception {
        // reportRejected decides to probe, but before its recover() lands an operator holds the pool.
        CircuitBreakerStrategy probesAlways = new CircuitBreakerStrategy() {
            @Override
            public void reportSuccess(Pool<?> pool) {
                pool.activate();
            }

            @Override
            public void reportFailure(Pool<?> pool, Throwable error) {
                pool.deactivate();
            }

            @Override
            public void reportRejected(Pool<?> pool) {
                Thread operator = new Thread(pool::deactivate, "operator");
                operator.start();
                try {
                    operator.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                pool.recover();
            }
        };
        Pool<Res> pool = track(builder().maxSize(2).listener(recorder).circuitBreakerStrategy(probesAlways).build());
        factory.failNext(new IllegalStateException("down"));
        start(pool::acquire).failure();
        assertThat(pool.state()).isEqualTo(CircuitBreakerState.INACTIVE);
        assertThatThrownBy(pool::acquire).isInstanceOfSatisfying(ServiceUnavailableException.class,
                e -> assertThat(e.heldByHand()).isTrue());
        assertThat(pool.state()).isEqualTo(CircuitBreakerState.INACTIVE);
        assertThatThrownBy(pool::acquire).isInstanceOf(ServiceUnavailableException.class);
        assertThat(transitions).containsExactly("ACTIVE->INACTIVE");
    }

    @Test
    void theStrategyRefusesNonsense() {
        assertThatThrownBy(() -> CircuitBreakerStrategy.consecutiveFailures(0, OPEN))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("threshold");
        assertThatThrownBy(() -> CircuitBreakerStrategy.consecutiveFailures(1, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("openDuration");
    }
}
