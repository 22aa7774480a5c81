package dev.loompool.engine;

/** What a caller or a waiter can be told instead of being handed an idle resource. */
enum Signal implements Reservation {
    /** A slot was freed for the waiter: it may run the factory. */
    CREATE,
    /** The pool closed. */
    CLOSED,
    /** The circuit breaker opened. */
    UNAVAILABLE,
    /** The waiter gave up (timeout or interrupt); whoever hands out skips it. */
    CANCELLED,
    /** Nothing yet: a waiter's outcome until something reaches it. */
    PENDING,
    /** Nothing free, and the caller may not wait (tryAcquire); or a cancel that nothing reached first. */
    NONE
}
