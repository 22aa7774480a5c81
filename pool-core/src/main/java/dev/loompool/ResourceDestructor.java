package dev.loompool;

/**
 * Destroys a resource the pool no longer wants. Failures are logged and never stop the pool from
 * forgetting the resource; during {@link Pool#close()} they are collected and rethrown.
 *
 * @param <T> the resource type
 */
@FunctionalInterface
public interface ResourceDestructor<T> {

    void destroy(T resource) throws Exception;

    /**
     * Destroys {@code resource}, told why the pool dropped it (for a log line of its own); the pool
     * calls this one. By default {@link #destroy(Object)}.
     */
    default void destroy(T resource, DestroyReason reason) throws Exception {
        destroy(resource);
    }
}
