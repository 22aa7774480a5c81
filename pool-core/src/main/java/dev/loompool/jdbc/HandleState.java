package dev.loompool.jdbc;

/** The life of a logical connection. */
enum HandleState {
    OPEN,
    CLOSED,
    /** Closed by the pool: the thread that used it last ended while it was bound (reclaimOnOwnerExit). */
    RECLAIMED
}
