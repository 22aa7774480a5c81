package dev.loompool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import jdk.jfr.Configuration;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The generic pool's Flight Recorder events (issue 30): {@code dev.loompool.ConnectionWait} for
 * every acquire that queued, with how it ended and how many were ahead, and
 * {@code dev.loompool.BreakerTransition}; read back through a recording stream, as an operator's
 * recording would see them. Without a recording that names them they are off.
 */
class FlightRecorderEventsTest {

    static final String WAIT = "dev.loompool.ConnectionWait";
    static final String BREAKER = "dev.loompool.BreakerTransition";
    private static final AtomicInteger POOL_NUMBER = new AtomicInteger();

    private final StubFactory factory = new StubFactory();
    private final String name = "jfr-" + POOL_NUMBER.incrementAndGet();
    private Pool<Res> pool;

    private Pool<Res> pool(int maxSize, CircuitBreakerStrategy strategy) {
        PoolBuilder<Res> builder = Pool.builder(factory).destructor(factory).name(name).maxSize(maxSize);
        if (strategy != null) {
            builder.circuitBreakerStrategy(strategy);
        }
        pool = builder.build();
        return pool;
    }

    @AfterEach
    void closePool() {
        if (pool != null) {
            pool.close();
        }
    }

    /**
     * An acquire on a thread of its own, returned once it is the pool's one waiter: its lease is
     * closed as soon as it gets one, its failure kept in {@code failure}.
     */
    private static Thread queued(Pool<Res> pool, AtomicReference<Throwable> failure) {
        Thread t = new Thread(() -> {
            try (Lease<Res> lease = pool.acquire(Duration.ofSeconds(30))) {
                lease.resource();
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "jfr-waiter");
        t.start();
        until("the waiter queues", () -> pool.stats().pending() == 1);
        return t;
    }

    private static void until(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting until " + what);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    private static List<String> outcomes(List<RecordedEvent> events) {
        return events.stream().map(e -> e.getString("outcome") + "/" + e.getInt("waitersAhead")).toList();
    }

    @Test
    void aWaitThatTimesOutIsRecordedWithTheWaitersAheadOfIt() throws Exception {
        try (FlightEvents jfr = new FlightEvents(WAIT)) {
            Pool<Res> pool = pool(1, null);
            pool.acquire().close(); // no wait: no event
            Lease<Res> held = pool.acquire();
            AtomicReference<Throwable> first = new AtomicReference<>();
            Thread waiter = queued(pool, first);
            assertThatThrownBy(() -> pool.acquire(Duration.ofMillis(50))).isInstanceOf(AcquireTimeoutException.class);
            held.close();
            waiter.join();
            assertThat(first.get()).isNull();
            List<RecordedEvent> events = jfr.await(WAIT, name, 2);
            assertThat(outcomes(events)).containsExactlyInAnyOrder("TIMEOUT/1", "ACQUIRED/0");
            assertThat(events).allMatch(e -> !e.getDuration().isNegative() && e.getThread() != null);
            assertThat(events).filteredOn(e -> e.getString("outcome").equals("TIMEOUT"))
                    .allMatch(e -> e.getThread().getJavaName().equals(Thread.currentThread().getName()));
        }
    }

    @Test
    void aWaiterHandedAFreedSlotOrTheCloseIsRecordedSo() throws Exception {
        try (FlightEvents jfr = new FlightEvents(WAIT)) {
            Pool<Res> pool = pool(1, null);
            Lease<Res> held = pool.acquire();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread waiter = queued(pool, failure);
            held.invalidate(); // its slot goes to the waiter, which creates on it
            waiter.join();
            assertThat(failure.get()).isNull();
            held = pool.acquire();
            waiter = queued(pool, failure);
            pool.close();
            waiter.join();
            assertThat(failure.get()).isInstanceOf(PoolClosedException.class);
            held.close();
            assertThat(outcomes(jfr.await(WAIT, name, 2))).containsExactly("CREATE/0", "CLOSED/0");
        }
    }

    @Test
    void aWaiterWokenByTheBreakerOrAnInterruptIsRecordedSo() throws Exception {
        try (FlightEvents jfr = new FlightEvents(WAIT)) {
            Pool<Res> pool = pool(1, null);
            Lease<Res> held = pool.acquire();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread waiter = queued(pool, failure);
            pool.deactivate();
            waiter.join();
            assertThat(failure.get()).isInstanceOf(ServiceUnavailableException.class);
            pool.activate();
            waiter = queued(pool, failure);
            waiter.interrupt();
            waiter.join();
            assertThat(failure.get()).isInstanceOf(InterruptedException.class);
            held.close();
            assertThat(outcomes(jfr.await(WAIT, name, 2))).containsExactly("REJECTED_BY_BREAKER/0", "INTERRUPTED/0");
        }
    }

    @Test
    void everyTransitionOfTheBreakerIsRecordedWithWhoOpenedIt() throws Exception {
        try (FlightEvents jfr = new FlightEvents(BREAKER)) {
            Pool<Res> pool = pool(2, CircuitBreakerStrategy.consecutiveFailures(2, Duration.ofMinutes(10)));
            factory.failNext(new IllegalStateException("refused")).failNext(new IllegalStateException("refused"));
            for (int i = 0; i < 2; i++) {
                assertThatThrownBy(pool::acquire).isInstanceOf(PoolException.class);
            }
            assertThat(pool.state()).isEqualTo(CircuitBreakerState.INACTIVE);
            pool.recover();
            pool.activate();
            pool.deactivate(); // by hand
            List<String> transitions = jfr.await(BREAKER, name, 4).stream()
                    .map(e -> e.getString("from") + "->" + e.getString("to") + (e.getBoolean("byHand") ? " by hand" : ""))
                    .toList();
            assertThat(transitions).containsExactly("ACTIVE->INACTIVE", "INACTIVE->RECOVERING", "RECOVERING->ACTIVE",
                    "ACTIVE->INACTIVE by hand");
        }
    }

    /**
     * A recording started without loompool's settings (JFR.start, the JDK's default.jfc) records
     * none of its events, and they stay disabled, so the pool's paths skip them.
     */
    @Test
    void aRecordingWithoutLoompoolsSettingsRecordsNoneOfItsEvents() throws Exception {
        Path file = Files.createTempFile("loompool-default", ".jfr");
        try (Recording recording = new Recording(Configuration.getConfiguration("default"))) {
            recording.start();
            Pool<Res> pool = pool(1, null);
            Lease<Res> held = pool.acquire();
            assertThatThrownBy(() -> pool.acquire(Duration.ofMillis(20))).isInstanceOf(AcquireTimeoutException.class);
            pool.deactivate();
            held.close();
            List<EventType> ours = FlightRecorder.getFlightRecorder().getEventTypes().stream()
                    .filter(t -> t.getName().startsWith("dev.loompool.")).toList();
            assertThat(ours).extracting(EventType::getName).contains(WAIT, BREAKER);
            assertThat(ours).noneMatch(EventType::isEnabled);
            recording.stop();
            recording.dump(file);
            assertThat(RecordingFile.readAllEvents(file)).isNotEmpty()
                    .noneMatch(e -> e.getEventType().getName().startsWith("dev.loompool."));
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
