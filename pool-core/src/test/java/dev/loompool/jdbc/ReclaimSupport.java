package dev.loompool.jdbc;

import dev.loompool.ManualClockAccess;
import dev.loompool.jdbc.internal.handle.Internals;
import java.time.Duration;

/**
 * Owner-exit reclaim on a stub data source, its housekeeping period measured on a manual clock.
 * A {@link StubSupport} test holds one: the clock is the test's own.
 */
final class ReclaimSupport {

    static final Duration PERIOD = Internals.RECLAIM_PERIOD;

    final ManualClockAccess clock = new ManualClockAccess();

    /** The data source with reclaimOnOwnerExit; the housekeeping period is measured on the manual clock. */
    LoomPoolDataSource reclaiming(LoomPoolDataSource ds) {
        ds.setClock(clock);
        ds.setReclaimOnOwnerExit(true);
        return ds;
    }
}
