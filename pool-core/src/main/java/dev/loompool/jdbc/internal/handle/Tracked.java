package dev.loompool.jdbc.internal.handle;

/** A statement or result set a handle must close when it closes or its connection breaks. */
interface Tracked {

    /** Closes the driver's object, ignoring failures: its connection is going away or gone. */
    void closeQuietly();

    /** What {@link #closeQuietly()} does with the driver's object, for statements and result sets alike. */
    static void closeQuietly(AutoCloseable driverObject) {
        try {
            driverObject.close();
        } catch (Exception ignored) {
            // the connection is being returned or is gone; nothing to tell anybody
        }
    }
}
