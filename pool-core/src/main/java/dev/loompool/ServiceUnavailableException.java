package dev.loompool;

/**
 * The circuit breaker is open (INACTIVE), or half-open with its single probe already under way:
 * the pool fails at once instead of making the caller wait for a backend that is down.
 */
public class ServiceUnavailableException extends PoolException {

    private static final long serialVersionUID = 1L;

    private final CircuitBreakerState state;
    private final transient PoolStats stats; // a record, not Serializable; the message keeps the counts

    public ServiceUnavailableException(String poolName, CircuitBreakerState state, PoolStats stats) {
        super("pool '" + poolName + "': circuit breaker is " + state
                + (state == CircuitBreakerState.RECOVERING ? " and its probe is under way" : "")
                + ", failing fast (" + stats + ")");
        this.state = state;
        this.stats = stats;
    }

    /** The circuit-breaker state that rejected the acquire. */
    public CircuitBreakerState state() {
        return state;
    }

    /** The pool's counts when it rejected the acquire. */
    public PoolStats stats() {
        return stats;
    }
}
