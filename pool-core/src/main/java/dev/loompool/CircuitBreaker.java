package dev.loompool;

/**
 * Manual control of a circuit breaker. Each method sets the state directly, whatever it was; a
 * {@link CircuitBreakerStrategy} calls the same methods to move it automatically.
 */
public interface CircuitBreaker {

    CircuitBreakerState state();

    /** Closes the circuit: requests go through again. */
    void activate();

    /**
     * Opens the circuit: new acquires fail fast, and threads already waiting are woken with
     * {@link ServiceUnavailableException} instead of sleeping out their timeout.
     */
    void deactivate();

    /** Half-opens the circuit: the next acquire goes through as a probe, one at a time. */
    void recover();
}
