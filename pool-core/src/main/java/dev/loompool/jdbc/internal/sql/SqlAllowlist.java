package dev.loompool.jdbc.internal.sql;

import dev.loompool.jdbc.internal.sql.SqlLexer.Kind;

/**
 * The proof a statement must pass to let its connection go (DESIGN.md §4, "Classifying SQL: an
 * allowlist"): its type is one known to leave nothing on the session for the dialect, and every
 * function it calls, every relation and operator it names is known neutral ({@link SqlFunctions}).
 * Whatever this cannot prove is session state; it never looks for dangers, only for safety.
 */
final class SqlAllowlist {

    private SqlAllowlist() {
    }

    static boolean neutral(SqlLexer t, int s, int e, SqlDialect dialect, SqlFunctions f) {
        return neutralType(t, s, e, dialect) && neutralNames(t, s, e, dialect, f);
    }

    /**
     * The query and DML forms, read-only {@code SHOW} and {@code DESCRIBE}, {@code EXPLAIN} of one of
     * them, and transaction control (whose transaction pins while it is open).
     */
    private static boolean neutralType(SqlLexer t, int s, int e, SqlDialect d) {
        while (s < e && t.isPunct(s, '(')) {
            s++; // (SELECT …) UNION (SELECT …)
        }
        if (t.kind(s) != Kind.WORD) {
            return false; // the JDBC escape {call …} among others
        }
        boolean postgres = d == SqlDialect.POSTGRES;
        boolean mysql = d == SqlDialect.MYSQL;
        if (t.is(s, "SELECT") || t.is(s, "VALUES") || t.is(s, "TABLE") || t.is(s, "INSERT") || t.is(s, "UPDATE")
                || t.is(s, "DELETE") || t.is(s, "MERGE") || t.is(s, "WITH") || t.is(s, "SHOW")
                || mysql && (t.is(s, "REPLACE") || t.is(s, "DESCRIBE") || t.is(s, "DESC"))) {
            return true;
        }
        if (t.is(s, "EXPLAIN")) {
            return neutralType(t, SqlRules.explained(t, s + 1, e), e, d);
        }
        if (t.is(s, "BEGIN")) {
            return !t.is(s + 1, "NOT"); // MariaDB's BEGIN NOT ATOMIC is a block
        }
        if (t.is(s, "COMMIT") || t.is(s, "ROLLBACK")) {
            return !releases(t, s, e);
        }
        if (t.is(s, "START") && t.is(s + 1, "TRANSACTION") || t.is(s, "SAVEPOINT") || t.is(s, "RELEASE")) {
            return true;
        }
        if (mysql) {
            return false; // END there closes a compound statement
        }
        if (t.is(s, "END") || t.is(s, "ABORT")) {
            return true;
        }
        // PostgreSQL: what lasts only for the transaction, and cursors (WITH HOLD ones the rules name).
        // Not SET LOCAL search_path: the driver keeps the type names it looks up under it past the
        // transaction, which the connection's return clears (SqlClassifier.mayChangeSearchPath).
        return postgres && (t.is(s, "PREPARE") && t.is(s + 1, "TRANSACTION")
                || t.is(s, "SET") && (t.is(s + 1, "LOCAL") || t.is(s + 1, "TRANSACTION") || t.is(s + 1, "CONSTRAINTS"))
                && !t.isPunct(s + 2, '.') && !(t.is(s + 2, "search_path") || t.is(s + 2, "SCHEMA"))
                || t.is(s, "LOCK") || t.is(s, "DECLARE") || t.is(s, "FETCH") || t.is(s, "MOVE") || t.is(s, "CLOSE")
                || t.is(s, "NOTIFY"));
    }

    /** MySQL's COMMIT … RELEASE and ROLLBACK … RELEASE end the session itself. */
    private static boolean releases(SqlLexer t, int s, int e) {
        for (int i = s; i < e; i++) {
            if (t.is(i, "RELEASE") && !t.is(i - 1, "NO")) {
                return true;
            }
        }
        return false;
    }

    /** Every call, relation, operator and INTO target of the statement is neutral. */
    private static boolean neutralNames(SqlLexer t, int s, int e, SqlDialect d, SqlFunctions f) {
        boolean postgres = d == SqlDialect.POSTGRES;
        for (int i = s; i < e; i++) {
            Kind k = t.kind(i);
            boolean name = k == Kind.WORD || k == Kind.QUOTED;
            if ((name || k == Kind.NUMBER) && t.isPunct(i + 1, '(') && !notACall(t, i, s, e, d)) {
                if (!name || t.text(i).startsWith("@")) {
                    return false; // MySQL names may start with a digit; PostgreSQL's @ is an operator
                }
                boolean qualified = i > s && t.isPunct(i - 1, '.');
                boolean arguments = !t.isPunct(i + 2, ')');
                if (!f.neutralCall(t.name(i), k == Kind.QUOTED, qualified, arguments, t.adjacent(i))) {
                    return false;
                }
            }
            if (d != SqlDialect.OTHER && name && f.volatileWord(t.name(i), k == Kind.QUOTED)) {
                return false; // a view or trigger whose SQL is not neutral, or PostgreSQL's t.f for f(t)
            }
            if (postgres && t.is(i, "pg_settings") && writes(t, s, e)) {
                return false; // UPDATE pg_settings is SET, however the statement is spelled
            }
            if (postgres && f.hasVolatileOperators() && operatorStart(t, i, s) && f.volatileOperator(operator(t, i, e))) {
                return false;
            }
            if (t.is(i, "INTO") && !intoTable(t, i, s, d)) {
                return false; // SELECT … INTO a new table or a variable
            }
        }
        return true;
    }

    /** PostgreSQL: a statement that may write, whatever it starts with. */
    private static boolean writes(SqlLexer t, int s, int e) {
        for (int i = s; i < e; i++) {
            if (t.is(i, "UPDATE") || t.is(i, "INSERT") || t.is(i, "DELETE") || t.is(i, "MERGE")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Where {@code name (} is not a call: a type's modifier after {@code ::} or {@code AS}
     * ({@code AS} also before an alias's column list), an alias's column list right after a FROM
     * item ({@code generate_series(1, 3) g(n)}, PostgreSQL), the table of {@code INSERT INTO t (…)},
     * a CTE's column list ({@code WITH x (a) AS (…)}). Anything else counts as a call.
     */
    private static boolean notACall(SqlLexer t, int i, int s, int e, SqlDialect d) {
        if (i > s && t.is(i - 1, "AS")) {
            return true;
        }
        if (d == SqlDialect.POSTGRES && i > s && (t.isPunct(i - 1, ')') || t.is(i - 1, "ORDINALITY"))) {
            return true;
        }
        if (i > s + 1 && t.isPunct(i - 1, ':') && t.isPunct(i - 2, ':') && t.adjacent(i - 2)) {
            return true;
        }
        int j = i;
        while (j - 2 >= s && t.isPunct(j - 1, '.')) {
            j -= 2; // a qualified name: schema.table
        }
        if (j > s && t.is(j - 1, "INTO")) {
            return true;
        }
        return cteName(t, i, s);
    }

    /**
     * Whether the name at {@code i} is one the WITH list defines: right after {@code WITH},
     * {@code RECURSIVE} or a comma of the list itself, at the top level, before the statement the
     * list is for. Not {@code FROM a, f() AS (x int)}: a column definition list, after a call.
     */
    private static boolean cteName(SqlLexer t, int i, int s) {
        if (!t.is(s, "WITH")) {
            return false;
        }
        int depth = 0;
        for (int j = s + 1; j < i; j++) {
            if (t.isPunct(j, '(')) {
                depth++;
            } else if (t.isPunct(j, ')')) {
                depth--;
            } else if (depth == 0 && (t.is(j, "SELECT") || t.is(j, "INSERT") || t.is(j, "UPDATE") || t.is(j, "DELETE")
                    || t.is(j, "MERGE") || t.is(j, "VALUES") || t.is(j, "TABLE"))) {
                return false; // past the list
            }
        }
        return depth == 0 && (t.is(i - 1, "WITH") || t.is(i - 1, "RECURSIVE") || t.isPunct(i - 1, ','));
    }

    /** PostgreSQL: a relation through which the statement reads a value the session keeps. */
    static int catalogValues(SqlLexer t, int s, int e, SqlDialect d, SqlFunctions f) {
        if (d != SqlDialect.POSTGRES) {
            return 0;
        }
        for (int i = s; i < e; i++) {
            Kind k = t.kind(i);
            if ((k == Kind.WORD || k == Kind.QUOTED) && f.keptValueWord(t.name(i), k == Kind.QUOTED)) {
                return SqlEffect.READS_KEPT;
            }
        }
        return 0;
    }

    /**
     * {@code INTO} of {@code INSERT}, {@code REPLACE} and {@code MERGE} (past MySQL's modifiers), and
     * MySQL's {@code INTO OUTFILE}/{@code DUMPFILE}; not {@code SELECT … INTO}, which makes a table
     * (PostgreSQL) or assigns variables (MySQL).
     */
    private static boolean intoTable(SqlLexer t, int i, int s, SqlDialect d) {
        if (d != SqlDialect.POSTGRES && (t.is(i + 1, "OUTFILE") || t.is(i + 1, "DUMPFILE"))) {
            return true;
        }
        int j = i - 1;
        while (j >= s && (t.is(j, "IGNORE") || t.is(j, "LOW_PRIORITY") || t.is(j, "DELAYED")
                || t.is(j, "HIGH_PRIORITY"))) {
            j--;
        }
        return j >= s && (t.is(j, "INSERT") || t.is(j, "REPLACE") || t.is(j, "MERGE"));
    }

    /** PostgreSQL operator characters: punctuation, and the {@code @} the lexer reads as a word. */
    private static boolean operatorChar(SqlLexer t, int i) {
        return t.kind(i) == Kind.PUNCT && "+-*/<>=~!@#%^&|`?".indexOf(t.text(i).charAt(0)) >= 0
                || t.kind(i) == Kind.WORD && t.text(i).startsWith("@");
    }

    private static boolean operatorStart(SqlLexer t, int i, int s) {
        return operatorChar(t, i) && !(i > s && operatorChar(t, i - 1) && t.adjacent(i - 1));
    }

    /** The run of operator characters from {@code i}, as written. */
    private static String operator(SqlLexer t, int i, int e) {
        StringBuilder op = new StringBuilder(t.text(i));
        while (i + 1 < e && operatorChar(t, i + 1) && t.adjacent(i)) {
            op.append(t.text(++i));
        }
        return op.toString();
    }
}
