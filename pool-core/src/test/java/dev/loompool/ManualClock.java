package dev.loompool;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when the test says so. */
final class ManualClock implements PoolClock {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    @Override
    public long nanoTime() {
        return now.get();
    }

    void advance(Duration by) {
        now.addAndGet(by.toNanos());
    }
}
