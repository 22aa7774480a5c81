package dev.loompool.jdbc.fuzz;

import dev.loompool.jdbc.fuzz.SequenceRun.Category;
import dev.loompool.jdbc.fuzz.SequenceRun.Failure;
import dev.loompool.jdbc.fuzz.Step.Kind;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;

/**
 * Findings the fuzzer knows, in three groups, so that a long run shows what is new.
 *
 * <p>Issue 38's list: fixed, each with a test of its own (MysqlConnectorSessionTest,
 * PostgresDriverCacheTest, PostgresKeptValuesTest, PostgresSessionEndedTest, ReadOnlyCallsTest),
 * apart from the README's known limits the generator can still reach (pgjdbc's bare type name
 * after a qualified one; the moment a server-ended session's error shows). The generator can produce each; with
 * {@code loompool.fuzz.pool.known=exclude} (the default, and CI's) the steps that trigger them
 * are not generated, and with {@code =include} they are, and a failure whose shrunk sequence holds
 * such a step is counted as that known finding instead of failing the test.
 * {@link #READ_ONLY_IN_TRANSACTION} cannot be left out by the generator (a transaction may be
 * open by SQL it does not model): it is recognised by its outcome in both modes.
 *
 * <p>Found by this fuzzer, fixed, and kept as counterexamples in
 * {@link PoolSequenceCounterexamplesTest} (recognised here only so that a long run of an older
 * build still sorts them); and found and left alone
 * (differences from the driver that do no harm). Both are recognised by their outcome and
 * counted, not failed.
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

    // ---- found by this fuzzer: @Disabled counterexamples ---------------------------------------

    /** MariaDB server: a READ ONLY transaction ended by {@code setAutoCommit(true)} leaves B's first transaction read-only. */
    READ_ONLY_AFTER_SET_AUTOCOMMIT,
    /** {@code FOUND_ROWS()} after a statement that sets no row count reads another statement's (B's, the pool's). */
    FOUND_ROWS_OF_ANOTHER_STATEMENT,
    /** pgjdbc: a schema set and set back (or rolled back) leaves the next borrower another search path. */
    SEARCH_PATH_AFTER_SET_SCHEMA,
    /** pgjdbc: {@code getTransactionIsolation} after SQL {@code SET TRANSACTION ISOLATION LEVEL} in a transaction answers the handle's level. */
    ISOLATION_GETTER_AFTER_SET_TRANSACTION,
    /** MySQL, MariaDB: autocommit off, a savepoint, a failed statement before any table was read: the connection goes, the savepoint with it. */
    SAVEPOINT_LOST_AFTER_A_FAILURE,

    // ---- found by this fuzzer and left alone -----------------------------------------------------

    /**
     * A setter pgjdbc refuses because it sees a transaction (25001, or 25P02 in a failed one) is
     * accepted by the pool: the level or schema is the one the handle has, so the pool sends
     * nothing, or pgjdbc's own getter began the transaction (pgjdbc asks the server, the pool
     * answers from the handle's memory).
     */
    SETTER_WHERE_PGJDBC_SEES_A_TRANSACTION,
    /**
     * The statement the pool sends before a text whose functions it cannot read
     * ({@code DISCARD SEQUENCES}) runs first: in a failed transaction it fails with 25P02 (a plain
     * SQLException, not a batch's BatchUpdateException) where the server would have reported the
     * text's own syntax error (42601) or pgjdbc its own refusal of the text (0A000, several
     * statements in one addBatch); and it begins the transaction pgjdbc would not have begun
     * for a text its own parser refuses, so a setter that follows meets one (25001).
     */
    POOL_STATEMENT_BEFORE_A_TEXT,
    /**
     * MySQL and MariaDB: {@code ROW_COUNT()} answers 0 where the driver's session answers -1, or
     * the reverse: after a failed statement (the server's leftover of the session set-up), or after
     * a setter the pool did not send because nothing changed (MySQL Connector/J sends
     * {@code SET autocommit}, which counts 0 rows).
     */
    ROW_COUNT_ZERO_OR_MINUS_ONE,
    /**
     * MySQL and MariaDB: the diagnostics ({@code SHOW WARNINGS}, {@code @@warning_count}) of an
     * earlier statement are gone after the pool's own statement (a round trip it makes after an
     * error): the read answers none, never another borrower's.
     */
    WARNINGS_CLEARED_BY_THE_POOL,
    /**
     * {@code releaseSavepoint} or {@code rollback(savepoint)} after the transaction ended: the
     * driver fails (the server has no such savepoint), the pool, which no longer holds a
     * connection for the handle, answers without an error.
     */
    SAVEPOINT_CALL_AFTER_THE_TRANSACTION;

    /** Whether the generator makes the steps that trigger known findings of the first group. */
    static boolean included() {
        return "include".equalsIgnoreCase(System.getProperty("loompool.fuzz.pool.known", "exclude"));
    }

    /**
     * The known finding a failure of {@code whole} is: by its outcome, or else by the known step
     * {@code tagged} holds (the sequence after shrinking, or the whole one), or null.
     */
    static Known of(Sequence tagged, Failure f, Sequence whole) {
        if (f.category() == Category.OUTCOME && f.step() >= 0) {
            Known k = byOutcome(whole.steps().get(f.step()), f.details().get(0), f.details().get(1));
            if (k != null) {
                return k;
            }
        }
        if (f.category() == Category.B_SESSION) {
            List<String> d = f.details();
            if (d.size() == 2 && d.stream().allMatch(l -> l.startsWith("- driver: a write in a transaction ")
                    || l.startsWith("+ driver: a write in a transaction fails 25006"))) {
                return READ_ONLY_AFTER_SET_AUTOCOMMIT; // 25006 read_only_sql_transaction
            }
            if (d.size() == 2 && d.stream().allMatch(l -> l.startsWith("- setting: search_path | ")
                    || l.startsWith("+ setting: search_path | "))) {
                return SEARCH_PATH_AFTER_SET_SCHEMA;
            }
        }
        return tagged.known();
    }

    private static String withoutIsolation(String getters) {
        return getters.substring(7).replaceAll("isolation [^,]*", "isolation ?");
    }

    private static Known byOutcome(Step step, String pool, String plain) {
        Kind kind = step.kind();
        String sql = step.sql() == null ? "" : step.sql().toUpperCase(Locale.ROOT);
        if (kind == Kind.SET_READ_ONLY && plain.startsWith("plain: error 25") && pool.startsWith("pool:  ok")) {
            return READ_ONLY_IN_TRANSACTION; // 25001 active_sql_transaction: pgjdbc's refusal
        }
        if (EnumSet.of(Kind.SET_ISOLATION, Kind.SET_SCHEMA, Kind.SET_CATALOG).contains(kind)
                && pool.startsWith("pool:  ok") && plain.startsWith("plain: error 25")) {
            return SETTER_WHERE_PGJDBC_SEES_A_TRANSACTION;
        }
        if (pool.startsWith("pool:  error 25  (25P02")
                && (plain.startsWith("plain: error 42") || plain.startsWith("plain: error 0A") || plain.startsWith("plain: error 25 counts"))
                || EnumSet.of(Kind.SET_ISOLATION, Kind.SET_READ_ONLY).contains(kind)
                        && pool.startsWith("pool:  error 25  (25001") && plain.startsWith("plain: ok")) {
            return POOL_STATEMENT_BEFORE_A_TEXT;
        }
        boolean savepointCall = kind == Kind.RELEASE_SAVEPOINT || kind == Kind.ROLLBACK_TO_SAVEPOINT;
        if (savepointCall && pool.startsWith("pool:  error 42  (42000") && pool.contains("does not exist")
                && plain.startsWith("plain: ok")) {
            return SAVEPOINT_LOST_AFTER_A_FAILURE;
        }
        if (savepointCall && pool.startsWith("pool:  ok") && plain.startsWith("plain: error ")) {
            return SAVEPOINT_CALL_AFTER_THE_TRANSACTION;
        }
        if (sql.contains("ROW_COUNT") && pool.replace("(0)", "(-1)").substring(7).equals(plain.replace("(0)", "(-1)").substring(7))) {
            return ROW_COUNT_ZERO_OR_MINUS_ONE;
        }
        if (sql.contains("FOUND_ROWS")) {
            return FOUND_ROWS_OF_ANOTHER_STATEMENT;
        }
        if (sql.contains("WARNING") || kind == Kind.WARNINGS) {
            return WARNINGS_CLEARED_BY_THE_POOL;
        }
        if (kind == Kind.GETTERS && withoutIsolation(pool).equals(withoutIsolation(plain))) {
            return ISOLATION_GETTER_AFTER_SET_TRANSACTION; // only the isolation differs
        }
        return null;
    }
}
