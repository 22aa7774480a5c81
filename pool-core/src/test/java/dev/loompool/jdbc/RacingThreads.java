package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * For borrower A racing itself across threads (DESIGN.md §4 "One state machine, every thread"), as
 * static steps a test imports (held, not inherited): the threads, and the invariants each test ends
 * with (the connection goes back once, a second borrower gets it, the open-handle count is back to
 * 0, no thread hangs). The pool of one stub connection behind {@link DeepGateDriver} that they race
 * on is {@link DeepGatedPools}.
 */
final class RacingThreads {

    static final Duration HANG = Duration.ofSeconds(30);

    private RacingThreads() {
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    static Thread other(String name, ThrowingRunnable r, AtomicReference<Throwable> failure) {
        Thread t = new Thread(() -> {
            try {
                r.run();
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        }, name);
        t.start();
        return t;
    }

    static int inUse(LoomPoolDataSource ds) {
        return ds.getPool().stats().inUse();
    }

    /** A second borrower gets the pool's one connection and runs a statement on it within 5 s. */
    static void freeWithinFiveSeconds(LoomPoolDataSource ds) throws Exception {
        CompletableFuture.runAsync(() -> {
            try (Connection b = ds.getConnection(); Statement st = b.createStatement()) {
                st.execute("SELECT 7");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }, r -> new Thread(r, "second-borrower").start()).get(5, TimeUnit.SECONDS);
    }

    /** Bound only for a reason it shows (DESIGN.md §4): else its connection is kept from every other borrower. */
    static void boundOnlyForAReason(Connection handle) throws SQLException {
        LoomConnection h = handle.unwrap(LoomConnection.class);
        if (h.isBound()) {
            assertThat(h.pinReasons()).as("a bound handle shows why it is bound").isNotEmpty();
        }
    }

    /**
     * Runs {@code release} on thread "releaser" while another thread is held in the driver, and
     * returns the pool's in-use count once the releaser either returned or has been waiting 3 s
     * (then it waits for the run, as it must). 1 means the connection was kept for the held run.
     */
    static int inUseWhileHeld(LoomPoolDataSource ds, Thread releaser) throws InterruptedException {
        releaser.join(3_000);
        return inUse(ds);
    }
}
