package dev.loompool.engine;

/**
 * What an acquire is given ({@link Slots#reserve}), and what reaches a parked {@link Waiter}: an
 * idle {@link Entry}, with its slot; a {@link Signal} (a slot to create on, or why not); or, from
 * {@code reserve} only, the caller's own place in the queue, a {@link Waiter}.
 */
sealed interface Reservation permits Entry, Signal, Waiter {
}
