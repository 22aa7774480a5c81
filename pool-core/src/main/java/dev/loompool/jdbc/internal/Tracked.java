package dev.loompool.jdbc.internal;

/** A statement or result set a handle must close when it closes or its connection breaks. */
interface Tracked {

    /** Closes the driver's object, ignoring failures: its connection is going away or gone. */
    void closeQuietly();

    /**
     * Result-set or parameter metadata was handed out: pgjdbc's query the connection when asked,
     * so it pins like an open statement until the handle closes. One marker for all of a handle's
     * metadata: nothing to close, and tracked once however often it is asked for.
     */
    Tracked METADATA = () -> {
        // the driver's metadata objects end with its connection
    };

    /** What {@link #closeQuietly()} does with the driver's object, for statements and result sets alike. */
    static void closeQuietly(AutoCloseable driverObject) {
        try {
            driverObject.close();
        } catch (Exception ignored) {
            // the connection is being returned or is gone; nothing to tell anybody
        }
    }
}
