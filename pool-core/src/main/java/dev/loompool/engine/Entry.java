package dev.loompool.engine;

/**
 * The pool's record of one resource. Idle resources are kept as entries so that the healthcheck
 * can take a given one out of the idle ring by identity, whatever {@code equals} the resource has.
 * A {@link DirectPool} lends the entry itself; it is the same object for the resource's whole life.
 *
 * <p>The lease's own bookkeeping lives here too, because only the current holder touches it:
 * that keeps the per-acquire {@link PooledLease} down to its entry and its state.
 */
public final class Entry<T> implements Reservation {

    final T resource;
    /** When the current lease began, for the use-time listener; written only when one listens. */
    long acquiredAt;
    /** Chosen to go because maxSize was lowered (Slots.resize); written under the pool's lock. */
    boolean surplus;

    Entry(T resource) {
        this.resource = resource;
    }

    /** The resource it records. */
    public T resource() {
        return resource;
    }
}
