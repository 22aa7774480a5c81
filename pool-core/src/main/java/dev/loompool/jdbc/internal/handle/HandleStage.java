package dev.loompool.jdbc.internal.handle;

/**
 * Where a logical connection is in its life: {@link HandleState#OPEN}; open under a
 * {@link HandleWatch}, which is the watch itself; then {@link HandleState#CLOSED} or
 * {@link HandleState#RECLAIMED}. Only {@link HandleLife} moves it, by compare-and-set.
 */
sealed interface HandleStage permits HandleState, HandleWatch {

    /** Whether calls on the handle may go on. */
    boolean isOpen();
}
