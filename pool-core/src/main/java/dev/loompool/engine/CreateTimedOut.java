package dev.loompool.engine;

import dev.loompool.PoolException;

/**
 * The cause of the {@link dev.loompool.AcquireTimeoutException} of a caller that timed out waiting
 * for its own create: what its time went on, so that the error can say it (a failed check of an
 * idle resource it was given first, and then the create). The create goes on in the background.
 */
public final class CreateTimedOut extends PoolException {

    private static final long serialVersionUID = 1L;

    private final long rejectedCheckNanos;
    private final long createNanos;

    CreateTimedOut(String poolName, long rejectedCheckNanos, long createNanos) {
        super("pool '" + poolName + "': " + (rejectedCheckNanos < 0 ? "the create of a new resource did not finish within "
                + createNanos / 1_000_000 + " ms" : "an idle resource failed its beforeAcquire check ("
                + rejectedCheckNanos / 1_000_000 + " ms), then the create of a new resource did not finish in the "
                + createNanos / 1_000_000 + " ms left") + "; it goes on in the background");
        this.rejectedCheckNanos = rejectedCheckNanos;
        this.createNanos = createNanos;
    }

    /** How long the check of the idle resource that was rejected before the create took; -1 if there was none. */
    public long rejectedCheckNanos() {
        return rejectedCheckNanos;
    }

    /** How long the caller waited for the create. */
    public long createNanos() {
        return createNanos;
    }
}
