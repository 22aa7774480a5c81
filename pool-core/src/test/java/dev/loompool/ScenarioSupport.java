package dev.loompool;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What every scenario suite shares. Every suite (the annotations are inherited) runs once with its
 * actors on platform threads and, on JDK 21+, once more on virtual threads.
 */
@ParameterizedClass
@MethodSource("threadKinds")
abstract class ScenarioSupport {

    /** How long a test waits for something that should happen at once, before it fails. */
    static final Duration PATIENCE = Duration.ofSeconds(30);

    protected final StubFactory factory = new StubFactory();
    protected final ManualClock clock = new ManualClock();
    private final List<Pool<?>> pools = new ArrayList<>();
    private final List<Thread> started = new ArrayList<>();

    /** The threads the scenario's concurrent actors run on: one of {@link #threadKinds()}. */
    @Parameter
    private ThreadFactory threads;

    static List<Named<ThreadFactory>> threadKinds() {
        List<Named<ThreadFactory>> kinds = new ArrayList<>();
        kinds.add(Named.of("platform", Thread::new));
        if (Runtime.version().feature() >= 21) {
            kinds.add(Named.of("virtual", virtualThreads()));
        }
        return kinds;
    }

    /**
     * {@code Thread.ofVirtual().name("actor-", 0).factory()}, called by reflection because these
     * sources also compile for Java 17.
     */
    private static ThreadFactory virtualThreads() {
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            Class<?> type = Class.forName("java.lang.Thread$Builder");
            builder = type.getMethod("name", String.class, long.class).invoke(builder, "actor-", 0L);
            return (ThreadFactory) type.getMethod("factory").invoke(builder);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("JDK " + Runtime.version() + " has no virtual threads", e);
        }
    }

    @FunctionalInterface
    interface Action<V> {
        V run() throws Exception;
    }

    /** A builder over the stub factory with the manual clock; the pool is closed after the test. */
    PoolBuilder<Res> builder() {
        return Pool.builder(factory).destructor(factory).clock(clock);
    }

    Pool<Res> track(Pool<Res> pool) {
        pools.add(pool);
        return pool;
    }

    Pool<Res> pool(int maxSize) {
        return track(builder().maxSize(maxSize).build());
    }

    /** Runs {@code action} on a new thread of the scenario's kind. */
    <V> Actor<V> start(Action<V> action) {
        CompletableFuture<V> result = new CompletableFuture<>();
        Thread thread = threads.newThread(() -> {
            try {
                result.complete(action.run());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        started.add(thread);
        thread.start();
        return new Actor<>(thread, result);
    }

    @FunctionalInterface
    interface VoidAction {
        void run() throws Exception;
    }

    /** Runs a void action, such as a release, on a new thread of the scenario's kind. */
    Actor<Void> startVoid(VoidAction action) {
        return start(() -> {
            action.run();
            return null;
        });
    }

    /** Starts an acquire that has to wait, and returns once it has queued. */
    Actor<Lease<Res>> queued(Pool<Res> pool, Duration timeout) {
        int before = pool.stats().pending();
        Actor<Lease<Res>> waiter = start(() -> pool.acquire(timeout));
        awaitPending(pool, before + 1);
        return waiter;
    }

    Actor<Lease<Res>> queued(Pool<Res> pool) {
        return queued(pool, Duration.ofMinutes(1));
    }

    record Actor<V>(Thread thread, CompletableFuture<V> result) {

        V join() throws Exception {
            try {
                return result.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof Exception cause) {
                    throw cause;
                }
                throw e;
            }
        }

        /** The exception the action ended with. */
        Throwable failure() throws Exception {
            try {
                V value = result.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
                throw new AssertionError("expected a failure, got " + value);
            } catch (ExecutionException e) {
                return e.getCause();
            }
        }

        boolean isDone() {
            return result.isDone();
        }

        void unpark() {
            LockSupport.unpark(thread);
        }
    }

    /** Waits until {@code condition} holds; fails after {@link #PATIENCE}. Not a timing assertion. */
    static void eventually(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting until " + what);
            }
            LockSupport.parkNanos(200_000);
        }
    }

    static void awaitPending(Pool<?> pool, int pending) {
        eventually(pending + " waiter(s) queue on " + pool, () -> pool.stats().pending() == pending);
    }

    static void assertCounts(Pool<?> pool, int total, int idle, int inUse, int pending) {
        PoolStats s = pool.stats();
        assertThat(s).as("stats of %s", pool.name())
                .extracting(PoolStats::total, PoolStats::idle, PoolStats::inUse, PoolStats::pending)
                .containsExactly(total, idle, inUse, pending);
    }

    @AfterEach
    void cleanUp() throws TimeoutException, InterruptedException {
        for (Pool<?> pool : pools) {
            try {
                pool.close();
            } catch (PoolException ignored) {
                // some scenarios make destructors fail on purpose
            }
        }
        for (Thread thread : started) {
            thread.join(PATIENCE.toMillis());
            if (thread.isAlive()) {
                throw new TimeoutException("actor " + thread + " is still running");
            }
        }
    }
}
