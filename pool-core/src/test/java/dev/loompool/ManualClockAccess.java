package dev.loompool;

import java.time.Duration;

/** The generic pool's manual test clock, for the JDBC layer's tests in another package. */
public final class ManualClockAccess implements PoolClock {

    private final ManualClock clock = new ManualClock();

    @Override
    public long nanoTime() {
        return clock.nanoTime();
    }

    public void advance(Duration by) {
        clock.advance(by);
    }
}
