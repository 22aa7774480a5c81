package dev.loompool.jdbc;

/** The life of a logical connection. */
enum HandleState {
    OPEN,
    CLOSED,
    /** Closed by the pool because its owner thread ended, or it became unreachable, while bound. */
    RECLAIMED
}
