package dev.loompool;

/** What a waiter can be told instead of being handed an idle resource. */
enum Signal {
    /** A slot was freed for the waiter: it may run the factory. */
    CREATE,
    /** The pool closed. */
    CLOSED,
    /** The circuit breaker opened. */
    UNAVAILABLE,
    /** The waiter gave up (timeout or interrupt); whoever hands out skips it. */
    CANCELLED
}
