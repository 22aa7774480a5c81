package dev.loompool.jdbc.fuzz;

/**
 * Findings already known and being fixed elsewhere (issue 38's list). The generator can produce
 * each; with {@code loompool.fuzz.pool.known=exclude} (the default, and CI's) the steps that
 * trigger them are not generated, and with {@code =include} they are, and a failure whose shrunk
 * sequence holds such a step is counted as that known finding instead of failing the test.
 * {@link #READ_ONLY_IN_TRANSACTION} cannot be left out by the generator (a transaction may be
 * open by SQL it does not model): it is recognised by its outcome in both modes.
 */
enum Known {
    /** MySQL Connector/J: SQL {@code USE other} is not undone for the next borrower. */
    USE_NOT_UNDONE,
    /** pgjdbc caches a type's oid by name: a type of one name in two schemas, under different search paths. */
    TYPE_CACHE_ACROSS_SEARCH_PATH,
    /** {@code currval} read through a user function: the per-statement value rule does not see it. */
    CURRVAL_THROUGH_FUNCTION,
    /** The server or driver ended the session ({@code COMMIT RELEASE}, pgjdbc after {@code SET DateStyle}): continued silently. */
    SESSION_ENDED,
    /** MySQL Connector/J: {@code prepareCall} of a versioned comment throws StringIndexOutOfBoundsException. */
    CALL_OF_VERSIONED_COMMENT,
    /** {@code setReadOnly} inside a transaction: pgjdbc refuses (25001), the pool does not. */
    READ_ONLY_IN_TRANSACTION,

    // Found by this fuzzer's long runs (issue 38) and left alone, recognised by their outcome and
    // counted, not failed: differences from pgjdbc where the pool does no harm.

    /**
     * A setter pgjdbc refuses because it sees a transaction (25001, or 25P02 in a failed one) is
     * accepted by the pool: the level or schema is the one the handle has, so the pool sends
     * nothing, or pgjdbc's own getter began the transaction (pgjdbc asks the server, the pool
     * answers from the handle's memory).
     */
    SETTER_WHERE_PGJDBC_SEES_A_TRANSACTION,
    /**
     * In a failed PostgreSQL transaction, the statement the pool sends before a text whose
     * functions it cannot read ({@code DISCARD SEQUENCES}) fails first, with 25P02, where the
     * server would have reported the text's own syntax error (42601): an error either way.
     */
    POOL_STATEMENT_FIRST_IN_FAILED_TRANSACTION,
    /**
     * MariaDB server: {@code ROW_COUNT()} after a statement that failed answers 0 on the pool's
     * connection where a fresh driver connection answers -1, with no statement of the pool's in
     * between (the server's leftover of the session set-up, not another borrower's count).
     */
    ROW_COUNT_AFTER_AN_ERROR;

    /** Whether the generator makes the steps that trigger known findings. */
    static boolean included() {
        return "include".equalsIgnoreCase(System.getProperty("loompool.fuzz.pool.known", "exclude"));
    }
}
