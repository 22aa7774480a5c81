package dev.loompool.engine;

import java.time.Duration;

/**
 * How a pool's start treats a failed create of its minSize resources, told by the factory handed to
 * {@link dev.loompool.PoolBuilder}: the JDBC layer's {@code initializationFailTimeout}. The generic
 * builder has no such setting (it is no public API); a factory that is not one fails the start at
 * the first failure, as {@code build()} always did.
 */
public interface PrewarmPolicy {

    /**
     * Zero: fail at the first failed create. Positive: keep trying, with a back-off, until this much
     * time has passed on the pool's clock, then fail with the last failure. Negative: never fail;
     * start with what was made and create the rest in the background.
     */
    Duration prewarmFailTimeout();

    /**
     * A start with a negative timeout went on with {@code made} of minSize resources after {@code cause}:
     * the rest are created in the background. Called once, on the building thread; must not block.
     */
    void startedShort(int made, Throwable cause);

    /**
     * How a failed create is written in the pool's log lines (retrying, the breaker, failed creates):
     * the factory may hide what the failure quotes of its own configuration. The failure handed to a
     * caller is not changed.
     */
    default String shown(Throwable cause) {
        return String.valueOf(cause);
    }

    /**
     * Whether the start's owner gave up on it (the data source was closed while it started): asked
     * after every failed create and on every wake of the wait between retries, so that a start with
     * a long timeout fails at once instead of holding the owner's close up.
     */
    default boolean abandoned() {
        return false;
    }
}
