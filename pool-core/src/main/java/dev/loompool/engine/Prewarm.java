package dev.loompool.engine;

import dev.loompool.DestroyReason;
import dev.loompool.PoolException;
import java.util.ArrayList;
import java.util.List;

/**
 * Creates a new pool's minSize resources on the building thread, so that build() returns a warm
 * pool or fails cleanly: if one creation fails, the ones made are destroyed and the pool is closed.
 */
final class Prewarm {

    private Prewarm() {
    }

    static <T> void run(DefaultPool<T> pool, int minSize) {
        List<Entry<T>> created = new ArrayList<>(minSize);
        try {
            for (int i = 0; i < minSize; i++) {
                created.add(Connect.make(pool));
            }
        } catch (Exception e) {
            created.forEach(entry -> pool.callbacks.destroyQuietly(entry, DestroyReason.POOL_CLOSED));
            pool.slots.close();
            throw new PoolException("pool '" + pool.name() + "': could not pre-warm minSize=" + minSize
                    + " resources, failed after " + created.size(), e);
        }
        pool.slots.addIdle(created);
        pool.startHousekeeping();
    }
}
