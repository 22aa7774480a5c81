package dev.loompool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Issue 11: the probe's verdict is its connect, stale reports do not move a RECOVERING circuit,
 * a connect never holds its caller past the deadline, and a failure validates the idle resources
 * at once (DESIGN.md §3, "Circuit breaker", "Every wait has a deadline").
 */
class ResilienceScenariosTest extends ScenarioSupport {

    private static final Duration OPEN = Duration.ofSeconds(10);

    private final List<String> transitions = new CopyOnWriteArrayList<>();
    private final PoolListener recorder = new PoolListener() {
        @Override
        public void onStateChanged(CircuitBreakerState from, CircuitBreakerState to) {
            transitions.add(from + "->" + to);
        }
    };

    private Pool<Res> breakerPool(int maxSize, int threshold) {
        return track(builder().maxSize(maxSize).listener(recorder)
                .circuitBreakerStrategy(CircuitBreakerStrategy.consecutiveFailures(threshold, OPEN, clock))
                .build());
    }

    private void openTheCircuit(Pool<Res> pool) throws Exception {
        factory.failNext(new IllegalStateException("down"));
        start(pool::acquire).failure();
        assertThat(pool.state()).isEqualTo(CircuitBreakerState.INACTIVE);
        clock.advance(OPEN);
    }

    @Test
    void theProbesConnectClosesTheCircuitWhileItsBorrowerStillHoldsIt() throws Exception {
        Pool<Res> pool = breakerPool(3, 1);
        openTheCircuit(pool);
        Lease<Res> probe = start(pool::acquire).join(); // a long transaction on the probe's connection
        assertThat(pool.state()).as("the connect succeeded: the database is back").isEqualTo(CircuitBreakerState.ACTIVE);
        start(pool::acquire).join().close(); // everybody else is served while the probe is held
        probe.close();
        assertThat(transitions).containsExactly("ACTIVE->INACTIVE", "INACTIVE->RECOVERING", "RECOVERING->ACTIVE");
    }

    @Test
    void aProbeOnAnIdleResourceIsJudgedByItsValidation() throws Exception {
        AtomicInteger checks = new AtomicInteger();
        Pool<Res> pool = track(builder().maxSize(2).listener(recorder)
                .beforeAcquire(r -> { checks.incrementAndGet(); return r.healthy; })
                .circuitBreakerStrategy(CircuitBreakerStrategy.consecutiveFailures(1, OPEN, clock)).build());
        pool.acquire().close(); // one idle resource
        pool.deactivate();
        pool.recover();
        Lease<Res> probe = start(pool::acquire).join();
        assertThat(checks).hasValue(1);
        assertThat(pool.state()).isEqualTo(CircuitBreakerState.ACTIVE);
        probe.close();
    }

    @Test
    void aReleaseOfALeaseTakenBeforeTheOutageDoesNotCloseTheCircuit() throws Exception {
        Pool<Res> pool = breakerPool(3, 1);
        Lease<Res> old = pool.acquire();
        openTheCircuit(pool);
        Gate gate = new Gate();
        factory.gate = gate;
        Actor<Lease<Res>> probe = start(pool::acquire); // its connect hangs at the gate
        gate.awaitEntered();
        assertThat(pool.state()).isEqualTo(CircuitBreakerState.RECOVERING);
        old.close(); // a stale success
        assertThat(pool.state()).as("only the probe's own outcome moves the state").isEqualTo(CircuitBreakerState.RECOVERING);
        factory.failNext(new IllegalStateException("still down"));
        gate.open();
        assertThat(probe.failure()).hasRootCauseMessage("still down");
        assertThat(pool.state()).isEqualTo(CircuitBreakerState.INACTIVE);
    }

    @Test
    void aStaleFailureDoesNotReopenTheCircuitWhileTheProbeConnects() throws Exception {
        Pool<Res> pool = breakerPool(3, 1);
        Lease<Res> old = pool.acquire();
        openTheCircuit(pool);
        Gate gate = new Gate();
        factory.gate = gate;
        Actor<Lease<Res>> probe = start(pool::acquire);
        gate.awaitEntered();
        old.invalidate(); // stale: taken before the outage
        assertThat(pool.state()).isEqualTo(CircuitBreakerState.RECOVERING);
        gate.open();
        probe.join().close();
        assertThat(pool.state()).isEqualTo(CircuitBreakerState.ACTIVE);
    }

    @Test
    void aConnectThatHangsDoesNotHoldItsCallerPastTheDeadline() throws Exception {
        Pool<Res> pool = track(builder().name("db").maxSize(2).build());
        Gate gate = new Gate();
        factory.gate = gate;
        Actor<Lease<Res>> caller = start(() -> pool.acquire(Duration.ofSeconds(2)));
        gate.awaitEntered();
        clock.advance(Duration.ofSeconds(2));
        caller.unpark();
        assertThat(caller.failure()).isInstanceOf(AcquireTimeoutException.class).hasMessageContaining("'db'");
        assertCounts(pool, 1, 0, 1, 0); // the connect still holds its slot
        gate.open(); // it completes late: the resource goes to idle, nothing is lost
        eventually("the late connect is put back", () -> pool.stats().idle() == 1);
        assertCounts(pool, 1, 1, 0, 0);
        pool.acquire().close();
        assertThat(factory.created).hasValue(1);
    }

    @Test
    void aConnectThatFailsAfterItsCallerGaveUpFreesItsSlot() throws Exception {
        Pool<Res> pool = track(builder().maxSize(1).build());
        Gate gate = new Gate();
        factory.gate = gate;
        Actor<Lease<Res>> caller = start(() -> pool.acquire(Duration.ofSeconds(1)));
        gate.awaitEntered();
        clock.advance(Duration.ofSeconds(1));
        caller.unpark();
        assertThat(caller.failure()).isInstanceOf(AcquireTimeoutException.class);
        factory.failNext(new IllegalStateException("refused"));
        gate.open();
        eventually("the slot is freed", () -> pool.stats().total() == 0);
        pool.acquire().close();
    }

    @Test
    void anInterruptedCallerLeavesItsConnectToThePool() throws Exception {
        Pool<Res> pool = track(builder().maxSize(1).build());
        Gate gate = new Gate();
        factory.gate = gate;
        Actor<Lease<Res>> caller = start(pool::acquire);
        gate.awaitEntered();
        caller.thread().interrupt();
        assertThat(caller.failure()).isInstanceOf(InterruptedException.class);
        gate.open();
        eventually("the late connect is put back", () -> pool.stats().idle() == 1);
    }

    @Test
    void aFailureValidatesEveryIdleResourceAtOnce() throws Exception {
        AtomicInteger checked = new AtomicInteger();
        Pool<Res> pool = track(builder().maxSize(4).healthcheck(r -> { checked.incrementAndGet(); return r.healthy; })
                .build()); // no periodic healthcheck
        List<Lease<Res>> leases = List.of(pool.acquire(), pool.acquire(), pool.acquire(), pool.acquire());
        leases.forEach(l -> l.resource().healthy = false); // the database restarted under them
        leases.get(1).close();
        leases.get(2).close();
        leases.get(3).close(); // three idle, dead
        leases.get(0).invalidate(); // the first connectivity failure
        // The last destructor's count rises before the pool counts its slot free: wait for both.
        eventually("the idle ones were validated without anybody acquiring",
                () -> factory.destroyed.get() == 4 && pool.stats().total() == 0);
        assertThat(checked.get()).isGreaterThanOrEqualTo(3);
        assertCounts(pool, 0, 0, 0, 0);
    }

    @Test
    void aRejectedIdleResourceIsReplacedByACreateWhileTheOthersAreCheckedInTheBackground() throws Exception {
        AtomicInteger handOutChecks = new AtomicInteger();
        Gate healthchecks = new Gate(); // the background check of the others waits here
        Pool<Res> pool = track(builder().maxSize(4)
                .beforeAcquire(r -> { handOutChecks.incrementAndGet(); return r.healthy; })
                .healthcheck(r -> { healthchecks.pass(); return r.healthy; })
                .build()); // no periodic healthcheck
        List<Lease<Res>> leases = List.of(pool.acquire(), pool.acquire(), pool.acquire());
        leases.forEach(l -> l.resource().healthy = false); // the database restarted under them
        leases.forEach(Lease::close); // three idle, dead
        int created = factory.created.get();
        Lease<Res> fresh = start(pool::acquire).join();
        assertThat(handOutChecks).as("the caller paid for one dead resource, not for each").hasValue(1);
        assertThat(fresh.resource().healthy).isTrue();
        assertThat(factory.created).as("it got a new one on the dead one's slot").hasValue(created + 1);
        healthchecks.awaitEntered();
        healthchecks.open();
        eventually("the other two were checked and destroyed", // and their slots counted free (after the destructor)
                () -> factory.destroyed.get() == 3 && pool.stats().total() == 1);
        fresh.close();
        assertCounts(pool, 1, 1, 0, 0);
    }

    @Test
    void aStrategyThatThrowsCostsNoSlotAndNoLease() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        CircuitBreakerStrategy faulty = new CircuitBreakerStrategy() {
            @Override
            public void reportSuccess(Pool<?> p) {
                calls.incrementAndGet();
                throw new IllegalStateException("strategy bug");
            }

            @Override
            public void reportFailure(Pool<?> p, Throwable error) {
                calls.incrementAndGet();
                throw new AssertionError("strategy bug");
            }

            @Override
            public void reportRejected(Pool<?> p) {
                calls.incrementAndGet();
                throw new IllegalStateException("strategy bug");
            }
        };
        Pool<Res> pool = track(builder().maxSize(1).circuitBreakerStrategy(faulty).build());
        pool.acquire().close(); // reportSuccess throws
        pool.acquire().invalidate(); // reportFailure throws
        assertCounts(pool, 0, 0, 0, 0);
        pool.deactivate();
        // held by hand: the strategy is not asked (its back-off probe must not end the hold)
        assertThatThrownBy(pool::acquire).isInstanceOf(ServiceUnavailableException.class);
        pool.recover();
        Lease<Res> probe = pool.acquire(); // the probe's verdict goes to reportSuccess, which throws
        assertThat(probe.resource()).isNotNull();
        probe.close();
        assertThat(calls.get()).as("success, failure, the probe's success: each threw").isEqualTo(3);
        pool.activate();
        start(pool::acquire).join().close(); // the one slot is still there
        assertCounts(pool, 1, 1, 0, 0);
    }

    @Test
    void whenTheCircuitClosesThePoolRefillsToMinSize() throws Exception {
        Pool<Res> pool = track(builder().minSize(2).maxSize(3).listener(recorder).healthcheck(r -> r.healthy)
                .circuitBreakerStrategy(CircuitBreakerStrategy.consecutiveFailures(1, OPEN, clock)).build());
        List<Lease<Res>> both = List.of(pool.acquire(), pool.acquire());
        both.forEach(Lease::invalidate); // the first failure opens: no refill while the circuit is open
        assertThat(pool.state()).isEqualTo(CircuitBreakerState.INACTIVE);
        assertThat(pool.stats().total()).isZero();
        clock.advance(OPEN);
        start(pool::acquire).join().close(); // the probe connects: the circuit closes
        assertThat(pool.state()).isEqualTo(CircuitBreakerState.ACTIVE);
        eventually("refilled to minSize without a caller", () -> pool.stats().idle() == 2);
    }
}
