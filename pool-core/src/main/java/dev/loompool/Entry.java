package dev.loompool;

/**
 * The pool's record of one resource. Idle resources are kept as entries so that the healthcheck
 * can take a given one out of the idle ring by identity, whatever {@code equals} the resource has.
 */
final class Entry<T> {

    final T resource;

    Entry(T resource) {
        this.resource = resource;
    }
}
