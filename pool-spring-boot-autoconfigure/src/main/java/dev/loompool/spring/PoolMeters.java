package dev.loompool.spring;

import dev.loompool.PoolListener;
import dev.loompool.jdbc.LoomPoolDataSource;

/**
 * What {@link PoolWiring} asks of the metrics: the meters of one more pool, and their listener. An
 * interface of its own, so that the wiring never names a Micrometer type and loads without
 * Micrometer on the class path; {@link LoomPoolMeters} implements it when Micrometer is there.
 */
interface PoolMeters {

    /** Registers the meters of {@code ds}; the listener that feeds its timers and counters. */
    PoolListener add(LoomPoolDataSource ds);

    /** Registers the meters of the replica pool {@code replicaName} of {@code ds}; its listener. */
    PoolListener addReplica(LoomPoolDataSource ds, String replicaName);
}
