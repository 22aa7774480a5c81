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
}
