package dev.loompool.jdbc.internal;

/** The JDBC settings a handle remembers and replays, and a returned connection resets. */
enum Attr {
    AUTO_COMMIT,
    ISOLATION,
    READ_ONLY,
    CATALOG,
    SCHEMA,
    HOLDABILITY,
    NETWORK_TIMEOUT
}
