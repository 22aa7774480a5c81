package dev.loompool.engine;

import dev.loompool.DestroyReason;
import dev.loompool.PoolException;
import dev.loompool.PoolListener;
import dev.loompool.ResourceCheck;
import dev.loompool.ResourceDestructor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the user's checks and destructor for a pool, so that whatever they throw (an {@code Error}
 * too) becomes a value the pool decides on: a callback never costs a slot or a lease. The caller
 * holds the resource's slot throughout.
 */
final class Callbacks<T> {

    private static final Logger log = LoggerFactory.getLogger(Callbacks.class);

    private final String name;
    private final ResourceDestructor<T> destructor;
    private final PoolListener listener;

    Callbacks(String name, ResourceDestructor<T> destructor, PoolListener listener) {
        this.name = name;
        this.destructor = destructor;
        this.listener = listener;
    }

    /** Null when {@code check} accepts the resource; else why not (its exception, or a false). */
    Throwable rejection(ResourceCheck<T> check, T resource, String what) {
        if (check == null) {
            return null;
        }
        try {
            return check.test(resource) ? null : new PoolException("pool '" + name + "': " + what + " returned false");
        } catch (Exception | Error e) {
            return e;
        }
    }

    /** {@link #rejection} for a check told its caller's deadline. */
    Throwable rejection(HandOutCheck<T> check, T resource, long now, long deadline) {
        try {
            return check.test(resource, now, deadline) ? null
                    : new PoolException("pool '" + name + "': beforeAcquire returned false");
        } catch (Exception | Error e) {
            return e;
        }
    }

    /** Runs the destructor; returns its failure, if any. */
    Throwable destroy(Entry<T> entry, DestroyReason reason) {
        Throwable failure = null;
        if (destructor != null) {
            try {
                destructor.destroy(entry.resource, reason);
            } catch (Exception | Error e) {
                failure = e;
            }
        }
        listener.onDestroyed(reason);
        return failure;
    }

    void destroyQuietly(Entry<T> entry, DestroyReason reason) {
        Throwable failure = destroy(entry, reason);
        if (failure != null) {
            log.warn("pool '{}': destructor failed on a resource dropped for {}", name, reason, failure);
        }
    }
}
