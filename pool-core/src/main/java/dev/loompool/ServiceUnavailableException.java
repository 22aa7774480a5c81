package dev.loompool;

/**
 * The circuit breaker is open (INACTIVE), or half-open with its single probe already under way:
 * the pool fails at once instead of making the caller wait for a backend that is down.
 */
public class ServiceUnavailableException extends PoolException {

    private static final long serialVersionUID = 1L;

    private final CircuitBreakerState state;

    public ServiceUnavailableException(String poolName, CircuitBreakerState state, PoolStats stats) {
        super("pool '" + poolName + "': circuit breaker is " + state
                + (state == CircuitBreakerState.RECOVERING ? " and its probe is under way" : "")
                + ", failing fast (" + stats + ")");
        this.state = state;
    }

    /** The circuit-breaker state that rejected the acquire. */
    public CircuitBreakerState state() {
        return state;
    }
}
