package dev.loompool.jdbc.internal;

import dev.loompool.jdbc.PinReason;
import java.sql.SQLException;
import java.util.Locale;

/**
 * Values that belong to one statement on one physical connection (DESIGN.md §4, "Per-statement
 * values"): which a text reads or leaves ({@link #of}, for {@link SqlClassifier}), and the rule
 * that keeps them with their statement ({@link #before}, for {@link Pins#beforeSql}).
 *
 * <p>The rule. A statement that reads a value of the statement just before it
 * ({@link SqlEffect#READS_LAST}: {@code FOUND_ROWS()}, {@code SHOW WARNINGS}) runs only if the
 * handle's last statement ran on the binding it holds now; one that reads a value the session keeps
 * ({@link SqlEffect#READS_KEPT}: {@code lastval()}, {@code LAST_INSERT_ID()}) only if the handle
 * ran a statement that leaves such a value ({@link SqlEffect#LEAVES}) on that binding. Otherwise
 * the value there may be another borrower's, or none, and the statement is refused before it
 * reaches the driver. A statement that leaves a value keeps the connection bound
 * ({@link PinReason#STATEMENT_VALUE}) until the handle's next statement has run, so that
 * {@code INSERT; SELECT lastval()} works as on the plain driver.
 *
 * <p>The connection keeps the binding number of its last statement ({@link PhysicalConnection#lastStatement}):
 * a binding is one handle's, so the number says whether the statement was this handle's, on this
 * binding; nothing is added to the handle, which is allocated on every getConnection.
 * There is no exception for the next binding of the same connection when nothing ran on it in
 * between: whether the pool handed the same connection back would depend on the load, and an
 * application must not pass its tests and fail in production.
 */
final class StatementValues {

    /** SQLState of a refusal: PostgreSQL's own for {@code currval} "not yet defined in this session". */
    static final String REFUSED = "55000";
    /**
     * In {@link PhysicalConnection#lastStatement}: a statement on that binding left a value. Binding
     * numbers never reach the sign bit (a connection's id sits in the high half).
     */
    static final long KEPT = Long.MIN_VALUE;

    private StatementValues() {
    }

    // ---- the rule --------------------------------------------------------------------------------

    /**
     * Before SQL with value flags runs on binding {@code b} of {@code h}: refuses an unsafe read,
     * then pins for what it leaves (and for an identity read, until close).
     */
    static void before(HandleLife h, PhysicalConnection p, long b, SqlEffect e, String sql) throws SQLException {
        int v = e.values;
        long last = p.lastStatement;
        boolean sameBinding = (last & ~KEPT) == b;
        if ((v & SqlEffect.READS_LAST) != 0 && !sameBinding || (v & SqlEffect.READS_KEPT) != 0 && last != (b | KEPT)) {
            throw refused(h.pool, sql, (v & SqlEffect.READS_KEPT) != 0 && sameBinding);
        }
        if ((v & SqlEffect.LEAVES) != 0) {
            Pins.add(h, PinReason.STATEMENT_VALUE);
            p.lastStatement = b | KEPT;
            p.valuesLeftBy = b;
        } else {
            ran(h, p, b);
        }
        if ((v & SqlEffect.IDENTITY) != 0) {
            Pins.add(h, PinReason.EXPLICIT); // a later KILL or pg_cancel_backend of that id must hit this handle's session
        }
    }

    /**
     * A statement that leaves no value runs on binding {@code b}: the value the last one left is
     * no longer kept for it (still readable on the same binding, as the session keeps it).
     */
    static void ran(HandleLife h, PhysicalConnection p, long b) {
        long last = p.lastStatement;
        if ((last & KEPT) != 0) {
            Pins.remove(h, PinReason.STATEMENT_VALUE);
            if (last != (b | KEPT)) {
                p.lastStatement = b;
            }
        } else {
            p.lastStatement = b;
        }
    }

    /**
     * Before SQL the pool cannot read (session SQL: a function it does not know may read
     * {@code lastval} or {@code LAST_INSERT_ID()} inside) runs on binding {@code b} of a connection
     * where another binding left a value: the value is discarded first, so that nothing reads
     * another borrower's (PostgreSQL {@code DISCARD SEQUENCES}, MySQL and MariaDB
     * {@code LAST_INSERT_ID(0)}, a fresh session's value). One round trip, only then.
     */
    static void discardOthers(HandleLife h, PhysicalConnection p, long b) throws SQLException {
        long by = p.valuesLeftBy;
        if (by == 0 || by == b) {
            return;
        }
        String discard = h.pool.classifier.discardValues();
        if (discard != null) {
            try (java.sql.Statement st = p.raw.createStatement()) {
                st.execute(discard);
            }
        }
        p.valuesLeftBy = 0;
    }

    private static SQLException refused(JdbcPool pool, String sql, boolean sameBinding) {
        String what = sql == null ? "a statement" : TransactionPooling.quote(sql);
        String why = sameBinding
                ? "this handle has not run the statement that sets it on the physical connection it holds now, so "
                        + "the value there is the session's from before (another borrower's, or none)"
                : "this handle's earlier statement ran on a physical connection that went back to the pool since "
                        + "(or this is its first statement there), so the value there may be another borrower's";
        return pool.factory.secrets().mask(new SQLException("pool '" + pool.name + "': refused " + what
                + ": it reads a value of an earlier statement (lastval, currval, LAST_INSERT_ID(), FOUND_ROWS(), "
                + "ROW_COUNT(), warnings, diagnostics), and " + why + ". Take the value from the statement itself "
                + "(getGeneratedKeys(), INSERT … RETURNING), run both statements in one transaction, or call "
                + "unwrap(LoomConnection.class).pin() before them", REFUSED));
    }

    // ---- what a text reads and leaves --------------------------------------------------------------

    /** Functions whose value is the previous statement's. */
    private static final String[] READS_LAST_FUNCTIONS = {"FOUND_ROWS", "ROW_COUNT"};
    /** Functions reading what the session kept from the last statement that set it. */
    private static final String[] READS_KEPT_FUNCTIONS = {"lastval", "currval"};
    /** Functions leaving a value the next statement is likely to read. */
    private static final String[] LEAVES_FUNCTIONS = {"nextval", "setval"};
    /** Functions answering the connection's identity, which a later KILL or pg_cancel_backend uses. */
    private static final String[] IDENTITY_FUNCTIONS = {"pg_backend_pid", "CONNECTION_ID", "PS_CURRENT_THREAD_ID"};

    /**
     * What the statement of tokens {@code s} to {@code e} reads or leaves, as {@link SqlEffect}'s
     * value flags. An {@code INSERT} or {@code REPLACE} leaves a value on PostgreSQL and MySQL
     * only (its generated id); elsewhere the flags come from the functions and variables alone.
     */
    static int of(SqlLexer t, int s, int e, SqlDialect dialect) {
        while (s < e && (t.isPunct(s, '{') || t.isPunct(s, '?') || t.isPunct(s, '='))) {
            s++; // the JDBC escape {? = call f(…)}
        }
        if (t.is(s, "CREATE") && definesRoutine(t, s, e)) {
            return 0; // a procedure, trigger or view names these; it runs them later, in a statement of its own
        }
        int v = 0;
        if (t.is(s, "SHOW") && (contains(t, s, e, "WARNINGS") || contains(t, s, e, "ERRORS"))) {
            v |= SqlEffect.READS_LAST; // SHOW WARNINGS, SHOW ERRORS, SHOW COUNT(*) WARNINGS
        }
        if (t.is(s, "GET") && contains(t, s, e, "DIAGNOSTICS")) {
            v |= SqlEffect.READS_LAST; // GET [CURRENT | STACKED] DIAGNOSTICS
        }
        boolean insert = t.is(s, "REPLACE") && !t.isPunct(s + 1, '(');
        boolean returning = false;
        for (int i = s; i < e; i++) {
            SqlLexer.Kind k = t.kind(i);
            if (k != SqlLexer.Kind.WORD && k != SqlLexer.Kind.QUOTED) {
                continue;
            }
            if (t.isPunct(i + 1, '(')) {
                v |= call(t, i);
            } else if (k == SqlLexer.Kind.WORD && t.text(i).startsWith("@@")) {
                v |= systemVariable(t, i);
            } else if (t.is(i, "INSERT")) {
                insert = true; // not MySQL's INSERT(str, pos, len, new), which the parenthesis tells
            }
            if (t.is(i, "RETURNING")) {
                returning = true;
            } else if (t.is(i, "SQL_CALC_FOUND_ROWS")) {
                v |= SqlEffect.LEAVES;
            } else if (t.is(i + 1, "VALUE") && t.is(i + 2, "FOR")) {
                v |= t.is(i, "NEXT") ? SqlEffect.LEAVES : t.is(i, "PREVIOUS") ? SqlEffect.READS_KEPT : 0; // MariaDB
            } else if (dialect == SqlDialect.MYSQL && i > s && t.isPunct(i - 1, '.')) {
                // MariaDB's sql_mode=ORACLE: s.nextval, s.currval, s.lastval
                v |= t.is(i, "nextval") ? SqlEffect.LEAVES : t.is(i, "currval") || t.is(i, "lastval") ? SqlEffect.READS_KEPT : 0;
            }
        }
        if (insert && !returning && dialect != SqlDialect.OTHER) {
            v |= SqlEffect.LEAVES;
        }
        return v;
    }

    /** The call of the function named at {@code i}. */
    private static int call(SqlLexer t, int i) {
        if (t.is(i, "LAST_INSERT_ID")) {
            return t.isPunct(i + 2, ')') ? SqlEffect.READS_KEPT : SqlEffect.LEAVES; // LAST_INSERT_ID(expr) sets it
        }
        return is(t, i, READS_LAST_FUNCTIONS) ? SqlEffect.READS_LAST
                : is(t, i, READS_KEPT_FUNCTIONS) ? SqlEffect.READS_KEPT
                : is(t, i, LEAVES_FUNCTIONS) ? SqlEffect.LEAVES
                : is(t, i, IDENTITY_FUNCTIONS) ? SqlEffect.IDENTITY
                : 0;
    }

    /** {@code @@name}, {@code @@session.name}, {@code @@local.name}: the lexer reads the scope as a word of its own. */
    private static int systemVariable(SqlLexer t, int i) {
        String name = t.text(i).substring(2).toLowerCase(Locale.ROOT);
        if (name.isEmpty() && t.kind(i + 1) == SqlLexer.Kind.QUOTED) {
            name = t.text(i + 1).toLowerCase(Locale.ROOT).replace("`", ""); // @@`name`, which the lexer reads as two tokens
        }
        if ((name.equals("session") || name.equals("local")) && t.isPunct(i + 1, '.')) {
            name = t.text(i + 2).toLowerCase(Locale.ROOT).replace("`", "");
        }
        switch (name) {
            case "warning_count":
            case "error_count":
                return SqlEffect.READS_LAST;
            case "identity":
            case "last_insert_id":
            case "last_gtid":
                return SqlEffect.READS_KEPT;
            case "pseudo_thread_id":
                return SqlEffect.IDENTITY;
            default:
                return 0;
        }
    }

    /** Object types whose body runs later, in statements of its own (unlike CREATE TABLE … AS SELECT, which runs now). */
    private static final String[] ROUTINES = {"FUNCTION", "PROCEDURE", "TRIGGER", "EVENT", "VIEW", "RULE", "PACKAGE"};

    /** Whether the CREATE at {@code s} defines a routine or view: its type comes within its first few words. */
    private static boolean definesRoutine(SqlLexer t, int s, int e) {
        for (int i = s + 1; i < Math.min(e, s + 8); i++) {
            if (is(t, i, ROUTINES)) {
                return true;
            }
        }
        return false;
    }

    private static boolean is(SqlLexer t, int i, String[] names) {
        for (String n : names) {
            if (t.is(i, n)) {
                return true;
            }
        }
        return false;
    }

    private static boolean contains(SqlLexer t, int s, int e, String word) {
        for (int i = s; i < e; i++) {
            if (t.is(i, word)) {
                return true;
            }
        }
        return false;
    }
}
