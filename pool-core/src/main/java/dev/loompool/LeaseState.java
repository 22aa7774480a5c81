package dev.loompool;

/** The life of one {@link Lease}: it leaves OPEN exactly once. */
enum LeaseState {
    OPEN,
    RELEASED,
    INVALIDATED
}
