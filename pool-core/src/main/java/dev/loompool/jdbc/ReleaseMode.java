package dev.loompool.jdbc;

/** When a logical connection gives its physical connection back to the pool. */
public enum ReleaseMode {
    /**
     * As soon as nothing pins it: no transaction, no open statement or result set, no session
     * state. The default, and the point of loompool.
     */
    STATEMENT,
    /** The classic behaviour: bound from the first use until the handle is closed. */
    CLOSE
}
