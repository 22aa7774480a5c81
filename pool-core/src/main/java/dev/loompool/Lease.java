package dev.loompool;

/**
 * One borrowing of one resource. Every acquire returns a new lease, so a lease kept after its
 * release can never hand back the resource somebody else borrowed next.
 *
 * @param <T> the resource type
 */
public interface Lease<T> extends AutoCloseable {

    /**
     * The borrowed resource.
     *
     * @throws IllegalStateException once the lease has been closed or invalidated
     */
    T resource();

    /**
     * Returns the resource to the pool (after {@code beforeRelease}). Idempotent: a second call,
     * or a call after {@link #invalidate()}, does nothing.
     */
    @Override
    void close();

    /**
     * Destroys the resource instead of returning it, and counts a circuit-breaker failure.
     * Idempotent, and does nothing after {@link #close()}.
     */
    void invalidate();
}
