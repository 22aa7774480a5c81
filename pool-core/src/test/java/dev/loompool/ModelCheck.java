package dev.loompool;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.jetbrains.lincheck.Lincheck;

/**
 * Lincheck's model checker over a fixed scenario: {@link #check} runs the scenario {@code
 * invocations} times, each time under another interleaving of its threads, chosen by the checker
 * (not by the OS scheduler), and fails with the interleaving that broke an assertion. A scenario
 * builds its own objects, starts its actors with {@link #runActors}, then asserts what must hold
 * once they are all done.
 *
 * <p>Why not Lincheck's data-structure mode ({@code ModelCheckingOptions().check(Class)}): it runs
 * only its own operation threads, and the pool creates every resource on a connect thread of its
 * own (engine.Connect), which that mode never schedules, so the first create "hangs". The
 * general-purpose mode used here follows every thread the code under test starts.
 */
public final class ModelCheck {

    private ModelCheck() {
    }

    /** Model-checks {@code scenario}: at most {@code invocations} interleavings. */
    public static void run(int invocations, Runnable scenario) {
        Lincheck.runConcurrentTest(invocations, scenario);
    }

    /**
     * Fails unless {@code fact} holds. The scenarios check with this rather than AssertJ: the
     * checker's trace calls {@code equals} on the objects it records, which AssertJ's assertions
     * refuse.
     */
    public static void check(boolean fact, String what) {
        if (!fact) {
            throw new AssertionError("expected: " + what);
        }
    }

    /** Fails unless {@code step} throws a {@code type}. */
    public static void expect(Class<? extends Throwable> type, Actor step) {
        try {
            step.run();
        } catch (Throwable t) {
            if (type.isInstance(t)) {
                return;
            }
            throw new AssertionError("expected " + type.getSimpleName() + ", got " + t, t);
        }
        throw new AssertionError("expected " + type.getSimpleName() + ", got no exception");
    }

    /** A step of an actor; what it throws fails the scenario, unless the actor handles it. */
    @FunctionalInterface
    public interface Actor {
        void run() throws Exception;
    }

    /**
     * Runs each actor on a thread of its own, all at once, and waits for them all; rethrows the
     * first failure (an actor's AssertionError or unexpected exception), with the others suppressed:
     * a failure on another thread is otherwise only printed.
     */
    public static void runActors(Actor... actors) {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>(actors.length);
        for (Actor actor : actors) {
            threads.add(new Thread(() -> {
                try {
                    actor.run();
                } catch (Throwable t) {
                    if (!failure.compareAndSet(null, t)) {
                        failure.get().addSuppressed(t);
                    }
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while joining the actors", e);
            }
        }
        Throwable first = failure.get();
        if (first instanceof Error error) {
            throw error;
        }
        if (first != null) {
            throw new AssertionError("an actor failed: " + first, first);
        }
    }
}
