package dev.loompool.jdbc.internal.driver;

/** The JDBC settings a handle remembers and replays, and a returned connection resets. */
public enum SessionAttribute {
    AUTO_COMMIT,
    ISOLATION,
    READ_ONLY,
    CATALOG,
    SCHEMA,
    HOLDABILITY,
    NETWORK_TIMEOUT
}
