package dev.loompool;

/**
 * A yes/no check on a resource: the healthcheck, {@code beforeAcquire} and {@code beforeRelease}
 * callbacks. Returning {@code false} and throwing mean the same thing: the resource is rejected
 * and destroyed.
 *
 * @param <T> the resource type
 */
@FunctionalInterface
public interface ResourceCheck<T> {

    boolean test(T resource) throws Exception;
}
