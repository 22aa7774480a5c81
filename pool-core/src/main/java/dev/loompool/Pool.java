package dev.loompool;

import java.time.Duration;
import java.util.Optional;

/**
 * A generic resource pool: bounded, strictly first come first served, with periodic healthchecks
 * of idle resources and a circuit breaker that fails requests at once while the backend is down.
 *
 * <pre>{@code
 * Pool<Conn> pool = Pool.builder(() -> openConn())
 *         .destructor(Conn::close)
 *         .minSize(2).maxSize(10)
 *         .build();
 * try (Lease<Conn> lease = pool.acquire()) {
 *     use(lease.resource());
 * }
 * }</pre>
 *
 * <p>All methods are thread-safe, and waiting never pins a virtual thread to its carrier.
 *
 * @param <T> the resource type
 */
public interface Pool<T> extends CircuitBreaker, AutoCloseable {

    /** Starts building a pool whose resources {@code factory} creates. */
    static <T> PoolBuilder<T> builder(ResourceFactory<T> factory) {
        return new PoolBuilder<>(factory);
    }

    /**
     * Borrows a resource, waiting up to the pool's {@code acquireTimeout}.
     *
     * @throws PoolClosedException if the pool is or gets closed
     * @throws ServiceUnavailableException if the circuit breaker rejects the request
     * @throws AcquireTimeoutException if no resource came in time
     * @throws PoolException whose cause is the factory's exception, if creating one failed
     * @throws InterruptedException if the thread was interrupted while waiting
     */
    Lease<T> acquire() throws InterruptedException;

    /** As {@link #acquire()}, waiting up to {@code timeout} instead. */
    Lease<T> acquire(Duration timeout) throws InterruptedException;

    /**
     * Borrows a resource if one is idle or may be created now, and never waits for one. It does
     * not jump the queue: with threads already waiting it returns empty.
     *
     * @throws PoolClosedException if the pool is closed
     * @throws ServiceUnavailableException if the circuit breaker rejects the request
     * @throws PoolException whose cause is the factory's exception, if creating one failed
     */
    Optional<Lease<T>> tryAcquire();

    /** A consistent snapshot of the counts. */
    PoolStats stats();

    /** The name given to the builder, or a generated {@code loompool-N}. */
    String name();

    /**
     * Closes the pool: wakes every waiter with {@link PoolClosedException}, destroys the idle
     * resources now and the lent ones when they come back. Idempotent.
     *
     * @throws PoolException if destructors failed; the first failure is the cause, the others are
     *     suppressed
     */
    @Override
    void close();

    boolean isClosed();
}
