package dev.loompool.jdbc;

import dev.loompool.jdbc.internal.lifecycle.ReclaimerInternals;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Waits on the housekeeper and the collector instead of sleeping for a guessed time. */
final class ReclaimerWaits {

    private ReclaimerWaits() {
    }

    /** Returns once {@code n} more housekeeping scans have run (over all pools). */
    static void awaitScans(int n) {
        long target = ReclaimerInternals.reclaimerScans() + n;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (ReclaimerInternals.reclaimerScans() < target) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting for " + n + " housekeeping scans");
            }
            LockSupport.parkNanos(5_000_000);
        }
    }

    /** Runs the collector and lets a scan pass, until {@code condition} holds; fails after 30 s. */
    static void gcUntil(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting until " + what);
            }
            System.gc();
            awaitScans(1);
        }
    }
}
