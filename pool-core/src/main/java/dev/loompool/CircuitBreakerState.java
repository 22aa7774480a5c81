package dev.loompool;

/** The state of a pool's circuit breaker. */
public enum CircuitBreakerState {
    /** Closed circuit: requests go through. */
    ACTIVE,
    /** Open circuit: every acquire fails at once with {@link ServiceUnavailableException}. */
    INACTIVE,
    /** Half-open: one acquire at a time goes through as a probe; the others fail fast. */
    RECOVERING
}
