package dev.loompool.jdbc.internal;

/** A statement or result set a handle must close when it closes or its connection breaks. */
interface Tracked {

    /** Closes the driver's object, ignoring failures: its connection is going away or gone. */
    void closeQuietly();
}
