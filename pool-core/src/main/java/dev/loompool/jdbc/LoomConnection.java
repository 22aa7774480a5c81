package dev.loompool.jdbc;

import java.util.Set;

/**
 * The loompool side of a logical connection: {@code connection.unwrap(LoomConnection.class)}.
 */
public interface LoomConnection {

    /** Keeps the current (or next) physical connection until {@link #unpin()} or close. */
    void pin();

    /**
     * Ends a {@link #pin()}; the physical connection goes back if nothing else pins it. A driver
     * object the handle handed out (an unwrapped one, a LOB, an array, metadata) keeps its pin
     * until the handle closes.
     */
    void unpin();

    /**
     * Pins for a framework-managed transaction; a framework calls this when the handle is used
     * inside its transaction and {@link #endFrameworkTransaction()} when the transaction completes.
     */
    void beginFrameworkTransaction();

    /** Ends {@link #beginFrameworkTransaction()}; releases the physical connection if nothing else pins it. */
    void endFrameworkTransaction();

    /** What pins the handle now; empty when it holds no physical connection or is about to give it back. */
    Set<PinReason> pinReasons();

    /** Whether the handle holds a physical connection now. */
    boolean isBound();

    /**
     * The thread that owns the handle: the one that used it last (opened it, or called a method on
     * it or on a statement, result set or metadata obtained from it), which may not be the one
     * that opened it. Calling this, {@link #isBound()} or {@link #pinReasons()} is no use.
     */
    Thread ownerThread();
}
