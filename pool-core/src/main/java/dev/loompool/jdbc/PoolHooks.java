package dev.loompool.jdbc;

import dev.loompool.PoolClock;
import dev.loompool.PoolListener;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * What {@link LoomPoolDataSource} hands its pools at start besides the JavaBean settings: the clock,
 * the listeners and the bind observer. None is a property a
 * binder sets; they are set before start only.
 */
final class PoolHooks {

    /** The clock that times idle, lifetime, leaks and the breaker; tests replace it. */
    PoolClock clock = PoolClock.SYSTEM;
    final List<PoolListener> primaryListeners = new ArrayList<>(2);
    final List<Function<String, PoolListener>> replicaListeners = new ArrayList<>(1);
    BindObserver bindObserver;

    /**
     * The listeners of the replica at {@code index} (0-based; its pool is named
     * {@code <poolName>-replica-(index + 1)}), each factory asked once.
     */
    List<PoolListener> replicaListeners(String poolName, int index) {
        List<PoolListener> listeners = new ArrayList<>(replicaListeners.size());
        String name = poolName + "-replica-" + (index + 1);
        replicaListeners.forEach(f -> listeners.add(f.apply(name)));
        return listeners;
    }
}
