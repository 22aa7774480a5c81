package dev.loompool.jdbc;

/** What of a physical connection the application holds beyond the pool's wrappers, least first. */
enum Exposure {
    /** Only the pool's wrappers. */
    NONE,
    /** A LOB, array or struct made by the driver, which reaches into the connection. */
    DRIVER_OBJECT,
    /**
     * The driver's own connection (an {@code unwrap}), or driver-side state the pool cannot reset
     * (a type map, client info): whatever was done through it, the connection is not reused.
     */
    DRIVER_STATE
}
