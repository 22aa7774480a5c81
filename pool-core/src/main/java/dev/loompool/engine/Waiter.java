package dev.loompool.engine;

/**
 * A thread parked in the pool's FIFO queue. Its outcome is written once, under the pool's lock,
 * by whoever hands it a resource, a slot or bad news; the parked thread reads it without the lock.
 */
final class Waiter implements Reservation {

    final Thread thread = Thread.currentThread();

    /** {@link Signal#PENDING} while waiting, then an {@link Entry} or another {@link Signal}. */
    volatile Reservation outcome = Signal.PENDING;
}
