package dev.loompool.engine;

import dev.loompool.ResourceCheck;

/**
 * A {@code beforeAcquire} check that is told its caller's deadline: the JDBC engine's validation of
 * an idle connection as it is handed out. Bounded by it, the check can leave its caller time to
 * create a fresh resource on the freed slot should it reject the one it was given (a connection
 * the network dropped while it sat idle). The generic builder has no such setting (it is no public
 * API): a check handed to {@code PoolBuilder.beforeAcquire} that is one is called through
 * {@link #test(Object, long, long)}, with the clock reading the pool takes for it anyway.
 */
public interface HandOutCheck<T> extends ResourceCheck<T> {

    /**
     * Whether {@code resource} may be handed out; false or an exception rejects it, as for any check.
     *
     * @param now the pool clock's reading as the check begins: the check need not read it again
     * @param deadline when the caller's acquire times out, on the pool clock: a rejection leaves
     *     the caller what remains of it for a create
     */
    boolean test(T resource, long now, long deadline) throws Exception;
}
