package dev.loompool.jdbc;

/**
 * Told each time a logical connection binds a physical one, on the thread that binds it. A
 * framework uses it to pin the handle for the length of its own transaction (the Spring Boot
 * starter does, with {@link LoomConnection#beginFrameworkTransaction()}). Must be fast.
 */
@FunctionalInterface
public interface BindObserver {

    void bound(LoomConnection handle);
}
