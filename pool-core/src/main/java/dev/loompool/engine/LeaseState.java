package dev.loompool.engine;

import dev.loompool.Lease;

/** The life of one {@link Lease}: it leaves OPEN exactly once. */
enum LeaseState {
    OPEN,
    RELEASED,
    INVALIDATED
}
