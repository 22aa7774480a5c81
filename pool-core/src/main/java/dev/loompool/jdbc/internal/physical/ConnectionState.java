package dev.loompool.jdbc.internal.physical;

/**
 * What a physical connection is fit for, from fit to unfit. It only ever moves towards unfit,
 * through {@link PhysicalConnection}'s named transitions, except that the driver objects a handle
 * was lent are given up with the handle. The holder and the housekeeper both move it, so each
 * move is a compare-and-set.
 */
public enum ConnectionState {
    /** Reused once reset. */
    HEALTHY,
    /**
     * The application holds LOBs, arrays, structs or SQLXML the driver made on it, which reach into
     * the connection: pinned while the handle is open; reused after its handle closes or is
     * reclaimed (they are the pool's wrappers, which refuse once this binding ends: LentObject).
     */
    LENDING_DRIVER_OBJECTS,
    /** Asked to go (Actuator evict): closed on return or at its next check; no breaker failure. */
    EVICTED,
    /**
     * Its binding ended while another thread's {@code commit()}, {@code rollback()} or setter was
     * under way on it (a watchdog's close overtaking the user's call): that call may still reach
     * it, and must not reach the next borrower's session. Closed on return, never lent again; no
     * breaker failure.
     */
    CLOSED_UNDER_USER,
    /**
     * The application held the driver's own connection (an {@code unwrap}), or gave it state the
     * driver keeps where no session reset reaches (a type map, client info): whatever went through
     * it is unknown, so it is closed on return, not reused, and never reclaimed while lent.
     */
    EXPOSED,
    /** The driver said it is gone: destroyed, never reused, and a circuit-breaker failure. */
    BROKEN;

    /** Whether the application may still reach into it through the driver's objects. */
    public boolean lent() {
        return this == LENDING_DRIVER_OBJECTS || this == EXPOSED;
    }
}
