package dev.loompool;

/**
 * The circuit breaker is open (INACTIVE), or half-open with its single probe already under way:
 * the pool fails at once instead of making the caller wait for a backend that is down.
 */
public class ServiceUnavailableException extends PoolException {

    private static final long serialVersionUID = 1L;

    private final CircuitBreakerState state;
    private final boolean heldByHand;
    private final transient PoolStats stats; // a record, not Serializable; the message keeps the counts

    public ServiceUnavailableException(String poolName, CircuitBreakerState state, PoolStats stats) {
        this(poolName, state, stats, false);
    }

    /** @param heldByHand the circuit was set INACTIVE by hand ({@link CircuitBreaker#deactivate()}), not after failures */
    public ServiceUnavailableException(String poolName, CircuitBreakerState state, PoolStats stats, boolean heldByHand) {
        super("pool '" + poolName + "': circuit breaker is " + state
                + (state == CircuitBreakerState.RECOVERING ? " and its probe is under way" : "")
                + (heldByHand ? ", set so by hand" : "")
                + ", failing fast (" + stats + ")");
        this.state = state;
        this.heldByHand = heldByHand;
        this.stats = stats;
    }

    /**
     * Whether the circuit was set INACTIVE by hand (an operator, {@link CircuitBreaker#deactivate()})
     * rather than opened by its strategy after connection failures: it stays so until set again.
     */
    public boolean heldByHand() {
        return heldByHand;
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
