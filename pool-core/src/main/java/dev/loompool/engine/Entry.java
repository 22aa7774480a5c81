package dev.loompool.engine;

/**
 * The pool's record of one resource. Idle resources are kept as entries so that the healthcheck
 * can take a given one out of the idle ring by identity, whatever {@code equals} the resource has.
 *
 * <p>The lease's own bookkeeping lives here too, because only the current lease holder touches it:
 * that keeps the per-acquire {@link PooledLease} down to its entry and its state.
 */
final class Entry<T> implements Reservation {

    final T resource;
    /** When the current lease began, for the use-time listener; written only when one listens. */
    long acquiredAt;

    Entry(T resource) {
        this.resource = resource;
    }
}
