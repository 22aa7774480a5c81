package dev.loompool.jdbc;

/** Why a logical connection keeps its physical connection (DESIGN.md §4, "Binding"). */
public enum PinReason {
    /** {@code setAutoCommit(false)}, or SQL {@code BEGIN} / {@code START TRANSACTION} / {@code SET autocommit=0}. */
    TRANSACTION,
    /**
     * A statement, or a {@code DatabaseMetaData} result set, is open; or a statement, metadata call
     * or {@code setClientInfo} of the handle still runs on some thread (a statement closed by
     * another thread meanwhile lets the connection go when that run ends).
     */
    STATEMENT,
    /** SQL left state on the session ({@code SET}, temp tables, {@code LISTEN}, session locks…). */
    SESSION_STATE,
    /** A framework (Spring) transaction is active on this thread. */
    FRAMEWORK_TRANSACTION,
    /**
     * {@code unwrap} to a driver type, a LOB or array was created, SQL read the connection's
     * identity ({@code pg_backend_pid()}, {@code CONNECTION_ID()}), or {@link LoomConnection#pin()}.
     */
    EXPLICIT,
    /**
     * The last statement left a value the next one is likely to read (an {@code INSERT}'s
     * generated id for {@code lastval()} or {@code LAST_INSERT_ID()}, {@code nextval},
     * {@code SQL_CALC_FOUND_ROWS}): kept until the handle's next statement has run.
     */
    STATEMENT_VALUE,
    /** {@link ReleaseMode#CLOSE}: bound from the first use until close. */
    RELEASE_MODE
}
