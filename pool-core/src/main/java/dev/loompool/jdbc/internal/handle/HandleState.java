package dev.loompool.jdbc.internal.handle;

/** The stages of a logical connection that are not a watch (see {@link HandleStage}). */
enum HandleState implements HandleStage {
    OPEN,
    /**
     * Being ended: whoever won the end closes its statements and settles its count, then moves
     * it to its final state. A first use on another thread that lost to the end waits for that.
     */
    ENDING,
    CLOSED,
    /** Closed by the pool: the thread that used it last ended while it was bound (reclaimOnOwnerExit). */
    RECLAIMED,
    /**
     * Ended by its connection's loss: the connection broke while the handle relied on its session
     * (SQL session state, a session lock, an explicit pin). A fresh connection would not have it,
     * so the handle says so, as the driver's connection does, instead of going on without it.
     */
    SESSION_LOST;

    @Override
    public boolean isOpen() {
        return this == OPEN;
    }
}
