package dev.loompool.jdbc.internal.physical;

import java.util.concurrent.atomic.LongAdder;

/**
 * How many handles are open (a handle counts from its first use until it ends): counted up on the
 * connection that served its first use, by that connection's holder, in a plain field
 * ({@link PhysicalConnection#countHandle()}), and down in one shared sum. The common cycle pays one
 * atomic operation for the count, not two; a reading adds up the connections' counts, so it may
 * miss, for a moment, a handle counted on another thread just now. A replica's pool shares its
 * primary's.
 */
public final class HandleCount {

    private final LongAdder ended = new LongAdder();
    /** The counts of connections that are gone. */
    private final LongAdder folded = new LongAdder();

    /** A counted handle ended (closed, reclaimed, or collected): exactly once per handle. */
    public void ended() {
        ended.increment();
    }

    /** {@code p} is going: what it counted joins the shared sum. */
    void fold(PhysicalConnection p) {
        folded.add(p.takeHandleCount());
    }

    /** The handles open now: those counted on the connections of {@code pools} and on gone ones, less those ended. */
    public long open(Iterable<JdbcPool> pools) {
        long counted = folded.sum();
        for (JdbcPool pool : pools) {
            for (PhysicalConnection p : pool.connections) {
                counted += p.handlesCounted();
            }
        }
        return Math.max(0, counted - ended.sum());
    }
}
