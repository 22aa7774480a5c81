package dev.loompool;

/**
 * Creates a new resource for a {@link Pool}. It may block (connect to a server, say): the pool has
 * already counted the slot as in use when it calls it, so a slow factory never lets the pool grow
 * past its {@code maxSize}.
 *
 * @param <T> the resource type
 */
@FunctionalInterface
public interface ResourceFactory<T> {

    /**
     * Creates a resource. An exception reaches the caller of {@code acquire} as the cause of a
     * {@link PoolException}, and counts as a circuit-breaker failure.
     */
    T create() throws Exception;
}
