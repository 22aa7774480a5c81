package dev.loompool.jdbc.internal;

/** The stages of a logical connection that are not a watch (see {@link HandleStage}). */
enum HandleState implements HandleStage {
    OPEN,
    CLOSED,
    /** Closed by the pool: the thread that used it last ended while it was bound (reclaimOnOwnerExit). */
    RECLAIMED;

    @Override
    public boolean isOpen() {
        return this == OPEN;
    }
}
