package dev.loompool.jdbc;

import dev.loompool.ManualClockAccess;
import dev.loompool.jdbc.internal.Internals;
import java.time.Duration;

/** The stub database with owner-exit reclaim on, its housekeeping period measured on a manual clock. */
abstract class ReclaimSupport extends StubSupport {

    static final Duration PERIOD = Internals.RECLAIM_PERIOD;

    final ManualClockAccess clock = new ManualClockAccess();

    /** With reclaimOnOwnerExit; the housekeeping period is measured on the manual clock. */
    LoomPoolDataSource reclaiming() {
        LoomPoolDataSource ds = dataSource();
        ds.setClock(clock);
        ds.setReclaimOnOwnerExit(true);
        return ds;
    }
}
