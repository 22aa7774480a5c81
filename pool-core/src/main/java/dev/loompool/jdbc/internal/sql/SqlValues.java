package dev.loompool.jdbc.internal.sql;

import java.util.Locale;

/**
 * What a statement's text reads or leaves of the values that belong to one statement on one
 * session (DESIGN.md §4, "Per-statement values"), as {@link SqlEffect}'s value flags, for
 * {@link SqlClassifier}. The rule that keeps such values with their statement is the handle's
 * (StatementValues).
 */
final class SqlValues {

    private SqlValues() {
    }

    /** Functions whose value is the previous statement's. */
    private static final String[] READS_LAST_FUNCTIONS = {"ROW_COUNT"};
    /** Functions reading what the session kept from the last statement that set it. */
    private static final String[] READS_KEPT_FUNCTIONS = {"lastval", "currval"};
    /** Functions leaving a value the next statement is likely to read. */
    private static final String[] LEAVES_FUNCTIONS = {"nextval", "setval"};
    /** Functions answering the connection's identity, which a later KILL or pg_cancel_backend uses. */
    private static final String[] IDENTITY_FUNCTIONS = {"pg_backend_pid", "CONNECTION_ID", "PS_CURRENT_THREAD_ID"};

    /**
     * What the statement of tokens {@code s} to {@code e} reads or leaves, as {@link SqlEffect}'s
     * value flags. An {@code INSERT} or {@code REPLACE} leaves a value on PostgreSQL and MySQL
     * only (its generated id: {@link SqlEffect#GENERATED}; {@link SqlEffect#HANDED} with
     * {@code RETURNING}, or where the catalog says its table has no column a sequence or
     * {@code AUTO_INCREMENT} fills, {@link #quietInsert}); elsewhere the flags come from the
     * functions and variables alone.
     */
    static int of(SqlLexer t, int s, int e, SqlDialect dialect, SqlFunctions functions) {
        while (s < e && (t.isPunct(s, '{') || t.isPunct(s, '?') || t.isPunct(s, '='))) {
            s++; // the JDBC escape {? = call f(…)}
        }
        if (t.is(s, "CREATE") && definesRoutine(t, s, e)) {
            return 0; // a procedure, trigger or view names these; it runs them later, in a statement of its own
        }
        int v = 0;
        if (dialect == SqlDialect.MYSQL && (t.is(s, "SELECT") || t.is(s, "WITH") || t.is(s, "VALUES")
                || t.is(s, "TABLE") || t.isPunct(s, '('))) {
            v |= SqlEffect.SETS_FOUND; // what FOUND_ROWS() answers next
        }
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
        if (insert && dialect != SqlDialect.OTHER) {
            // a nextval or LAST_INSERT_ID(expr) in the text leaves a value of its own, which no key hands back;
            // a table that generates no key is as if it handed it back: whatever the session holds is not read
            boolean handed = returning || quietInsert(t, s, e, functions);
            v |= (v & SqlEffect.LEAVES) != 0 ? SqlEffect.LEAVES
                    : SqlEffect.LEAVES | SqlEffect.GENERATED | (handed ? SqlEffect.HANDED : 0);
        }
        return v;
    }

    /**
     * Whether the statement is one {@code INSERT} or {@code REPLACE} into a table the catalog
     * knows, under every name it has, to generate no key: no sequence or identity, no
     * {@code AUTO_INCREMENT}, no trigger or rule ({@link SqlFunctions#quietTable}). Its first word
     * is the only {@code INSERT} of the statement (not {@code WITH …}, not {@code MERGE}); a table
     * created after the catalog was read is not known, so its INSERT leaves a value.
     */
    private static boolean quietInsert(SqlLexer t, int s, int e, SqlFunctions functions) {
        if (!t.is(s, "INSERT") && !t.is(s, "REPLACE")) {
            return false;
        }
        for (int i = s + 1; i < e; i++) {
            if (t.is(i, "INSERT") || t.is(i, "REPLACE") && !t.isPunct(i + 1, '(')) {
                return false;
            }
        }
        int i = s + 1;
        while (t.is(i, "LOW_PRIORITY") || t.is(i, "DELAYED") || t.is(i, "HIGH_PRIORITY") || t.is(i, "IGNORE")) {
            i++;
        }
        if (t.is(i, "INTO")) {
            i++;
        }
        while (i + 2 < e && t.isPunct(i + 1, '.')) {
            i += 2; // schema.table: the last name is the table's
        }
        SqlLexer.Kind k = t.kind(i);
        return i < e && (k == SqlLexer.Kind.WORD || k == SqlLexer.Kind.QUOTED) && !t.isPunct(i + 1, '.')
                && functions.quietTable(t.name(i));
    }

    /** The call of the function named at {@code i}. */
    private static int call(SqlLexer t, int i) {
        if (t.is(i, "LAST_INSERT_ID")) {
            return t.isPunct(i + 2, ')') ? SqlEffect.READS_KEPT : SqlEffect.LEAVES; // LAST_INSERT_ID(expr) sets it
        }
        if (t.is(i, "FOUND_ROWS")) {
            return SqlEffect.READS_FOUND; // the last SELECT's count, not the last statement's
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
