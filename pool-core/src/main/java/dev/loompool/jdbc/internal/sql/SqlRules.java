package dev.loompool.jdbc.internal.sql;

import dev.loompool.jdbc.internal.sql.SqlEffect.Tx;

/**
 * What the classifier's rules name (DESIGN.md §4): how a statement leaves the transaction
 * ({@code BEGIN}, {@code COMMIT AND CHAIN}, MySQL's {@code SET autocommit}), and the session
 * state they know by name ({@code SET}, temporary tables, session locks, user variables…). They
 * no longer decide what is neutral — {@link SqlAllowlist} does — but they give the transaction its
 * state for drivers whose wire cannot be read, and they alone decide what is refused behind a
 * pooler in transaction mode ({@link SqlClassifier#classifyBehindPooler}).
 */
final class SqlRules {

    /** Functions that leave state on the session, or take a lock that outlives the transaction. */
    private static final String[] SESSION_FUNCTIONS = {
        "set_config", "pg_advisory_lock", "pg_advisory_lock_shared", "pg_try_advisory_lock",
        "pg_try_advisory_lock_shared", "dblink_connect", "dblink_connect_u", "get_lock",
        // nextval, setval, currval and lastval are not here: a sequence's last value is a value the next
        // statement reads (SqlEffect.LEAVES, READS_KEPT), kept for it by the STATEMENT_VALUE pin, and
        // refused to a borrower that did not set it on its binding (StatementValues)
        // the seed of random(): a borrower who set it knows the next one's "random" values
        "setseed",
    };

    private SqlRules() {
    }

    /** What the statement's first keywords say. */
    static SqlEffect leading(SqlLexer t, int s, int e, SqlDialect dialect) {
        while (s < e && (t.isPunct(s, '{') || t.isPunct(s, '?') || t.isPunct(s, '='))) {
            s++; // the JDBC escape {? = call f(…)} or {call p(…)}
        }
        if (t.is(s, "EXPLAIN")) {
            return leading(t, explained(t, s + 1, e), e, dialect); // EXPLAIN ANALYZE runs the statement
        }
        if (t.kind(s) != SqlLexer.Kind.WORD) {
            return SqlEffect.NONE;
        }
        int n = s + 1;
        if (t.is(s, "BEGIN")) {
            return t.is(n, "NOT") ? SqlEffect.SESSION_BEGIN : SqlEffect.BEGIN; // MariaDB BEGIN NOT ATOMIC: a block
        }
        if (t.is(s, "START")) {
            if (!t.is(n, "TRANSACTION")) {
                return SqlEffect.NONE;
            }
            // MariaDB: a READ ONLY transaction that SET autocommit = 1 ends leaves the session's next
            // transaction read-only too, though the server reports none open; a reset clears it
            return dialect != SqlDialect.POSTGRES && contains(t, s, e, "ONLY") ? SqlEffect.SESSION_BEGIN : SqlEffect.BEGIN;
        }
        if (t.is(s, "COMMIT") || t.is(s, "END") || t.is(s, "ABORT") || t.is(s, "ROLLBACK")) {
            return ending(t, s, e);
        }
        if (t.is(s, "PREPARE")) {
            return t.is(n, "TRANSACTION") ? SqlEffect.END : SqlEffect.SESSION; // two-phase commit, or SQL PREPARE
        }
        if (t.is(s, "SET")) {
            return set(t, s, e, dialect);
        }
        if (t.is(s, "CREATE")) {
            // PostgreSQL's ON COMMIT DROP: the table ends with the transaction, which pins anyway
            return temporary(t, n) && !(dialect == SqlDialect.POSTGRES && onCommitDrop(t, n, e))
                    ? SqlEffect.SESSION : SqlEffect.NONE;
        }
        if (t.is(s, "LOAD")) { // PostgreSQL LOAD 'library' stays loaded; MySQL LOAD DATA is plain DML
            return t.is(n, "DATA") || t.is(n, "XML") ? SqlEffect.NONE : SqlEffect.SESSION;
        }
        if (t.is(s, "FLUSH")) {
            // FLUSH TABLES … WITH READ LOCK and MariaDB's FOR EXPORT: locks the session holds
            return contains(t, s, e, "LOCK") || contains(t, s, e, "EXPORT") ? SqlEffect.SESSION : SqlEffect.NONE;
        }
        if (t.is(s, "EXECUTE")) {
            return t.is(n, "IMMEDIATE") ? SqlEffect.SESSION_BEGIN : SqlEffect.NONE;
        }
        if (t.is(s, "GET")) {
            return SqlEffect.SESSION; // MySQL's GET DIAGNOSTICS assigns user variables (@n = NUMBER)
        }
        if (t.is(s, "DO") || t.is(s, "CALL") || t.is(s, "XA")) {
            return SqlEffect.SESSION_BEGIN; // procedural: what it does cannot be known from outside
        }
        if (dialect == SqlDialect.POSTGRES && t.is(s, "LOCK")) {
            return SqlEffect.NONE; // LOCK TABLE: held to the end of the transaction it needs, which pins anyway
        }
        if (dialect == SqlDialect.POSTGRES && t.is(s, "DECLARE")) {
            return contains(t, s, e, "HOLD") ? SqlEffect.SESSION : SqlEffect.NONE; // else the cursor ends with its transaction
        }
        if (t.is(s, "RESET") || t.is(s, "DISCARD") || t.is(s, "LISTEN") || t.is(s, "USE") || t.is(s, "DECLARE")
                || t.is(s, "LOCK") || t.is(s, "HANDLER") || t.is(s, "BACKUP")) {
            return SqlEffect.SESSION; // BACKUP: MariaDB's BACKUP LOCK and BACKUP STAGE are held by the session
        }
        if (t.is(s, "UPDATE") && t.is(n, "ONLY")) {
            n++;
        }
        if (t.is(s, "UPDATE") && (t.is(n, "pg_settings") || t.is(n, "pg_catalog") && t.is(n + 2, "pg_settings"))) {
            return SqlEffect.SESSION; // PostgreSQL: UPDATE pg_settings is SET
        }
        return SqlEffect.NONE;
    }

    /** The statement an EXPLAIN names: past ANALYZE, VERBOSE and a parenthesised option list. */
    static int explained(SqlLexer t, int i, int e) {
        if (t.isPunct(i, '(')) {
            int depth = 0;
            do {
                depth += t.isPunct(i, '(') ? 1 : t.isPunct(i, ')') ? -1 : 0;
                i++;
            } while (i < e && depth > 0);
        }
        while (i < e) {
            if (t.is(i, "FORMAT")) {
                i += 2; // MySQL FORMAT=JSON and the like: the value follows
                while (i < e && (t.kind(i) == SqlLexer.Kind.PUNCT || t.is(i, "JSON") || t.is(i, "TREE"))) {
                    i++;
                }
            } else if (t.is(i, "ANALYZE") || t.is(i, "ANALYSE") || t.is(i, "VERBOSE") || t.is(i, "EXTENDED")
                    || t.is(i, "PARTITIONS")) {
                i++;
            } else {
                break;
            }
        }
        return i;
    }

    /** COMMIT, ROLLBACK, END, ABORT: they end the transaction, unless they chain or stop at a savepoint. */
    private static SqlEffect ending(SqlLexer t, int s, int e) {
        int n = s + 1;
        if (t.is(n, "WORK") || t.is(n, "TRANSACTION")) {
            n++;
        }
        if (t.is(n, "TO") || t.is(n, "PREPARED")) {
            return SqlEffect.NONE; // ROLLBACK TO SAVEPOINT stays inside; COMMIT PREPARED runs outside one
        }
        for (int i = n; i < e; i++) {
            if (t.is(i, "CHAIN")) {
                return t.is(i - 1, "NO") ? SqlEffect.END : SqlEffect.BEGIN; // AND CHAIN opens the next at once
            }
        }
        return SqlEffect.END;
    }

    /**
     * SET changes the session, except where it lasts only for the transaction: PostgreSQL's
     * SET LOCAL, SET TRANSACTION and SET CONSTRAINTS (MySQL's SET LOCAL is SET SESSION, and its SET
     * TRANSACTION outside one applies to the next, whoever runs it). Autocommit switches open or
     * end a transaction as well.
     */
    private static SqlEffect set(SqlLexer t, int s, int e, SqlDialect dialect) {
        int n = s + 1;
        // The keywords, not a setting of that name: SET local.tenant = … and SET "local".x = … last.
        if (dialect == SqlDialect.POSTGRES && t.kind(n) == SqlLexer.Kind.WORD && !t.isPunct(n + 1, '.')
                && (t.is(n, "LOCAL") || t.is(n, "TRANSACTION") || t.is(n, "CONSTRAINTS"))) {
            return SqlEffect.NONE;
        }
        for (int i = n; i < e; i++) {
            if (t.is(i, "autocommit") || t.is(i, "@@autocommit")) {
                int v = i + 1;
                while (v < e && (t.kind(v) == SqlLexer.Kind.PUNCT || t.is(v, "TO"))) {
                    v++; // = := TO
                }
                boolean off = t.is(v, "OFF") || t.is(v, "FALSE")
                        || t.kind(v) == SqlLexer.Kind.NUMBER && t.text(v).equals("0")
                        || t.kind(v) == SqlLexer.Kind.STRING && t.text(v).matches("(?i)'(0|off|false)'");
                return off ? SqlEffect.SESSION_BEGIN : SqlEffect.SESSION_END;
            }
        }
        return SqlEffect.SESSION;
    }

    private static boolean onCommitDrop(SqlLexer t, int s, int e) {
        for (int i = s; i + 2 < e; i++) {
            if (t.is(i, "ON") && t.is(i + 1, "COMMIT") && t.is(i + 2, "DROP")) {
                return true;
            }
        }
        return false;
    }

    /** [OR REPLACE] [GLOBAL | LOCAL] TEMP | TEMPORARY | (the word after CREATE or INTO). */
    private static boolean temporary(SqlLexer t, int i) {
        if (t.is(i, "OR") && t.is(i + 1, "REPLACE")) {
            i += 2;
        }
        if (t.is(i, "GLOBAL") || t.is(i, "LOCAL")) {
            i++;
        }
        return t.is(i, "TEMP") || t.is(i, "TEMPORARY");
    }

    /**
     * Anywhere in a statement: a call of a session function (quoted or schema-qualified too), the
     * pg_temp schema, SELECT … INTO TEMP, and MySQL user variables assigned with := or INTO.
     */
    static boolean touchesSession(SqlLexer t, int s, int e, boolean pooler) {
        for (int i = s; i < e; i++) {
            SqlLexer.Kind k = t.kind(i);
            if (k != SqlLexer.Kind.WORD && k != SqlLexer.Kind.QUOTED) {
                continue;
            }
            if (t.isPunct(i + 1, '(') && sessionCall(t, i, e, pooler)) {
                return true;
            }
            if (pooler && t.is(i, "PREVIOUS") && t.is(i + 1, "VALUE") && t.is(i + 2, "FOR")) {
                return true; // MariaDB's lastval
            }
            if (t.is(i, "U") && t.isPunct(i + 1, '&') && t.kind(i + 2) == SqlLexer.Kind.QUOTED) {
                return true; // U&"set\005fconfig": an identifier spelled in escapes, which the pool does not decode
            }
            if (t.is(i, "pg_temp")) {
                return true;
            }
            if (t.is(i, "INTO") && (temporary(t, i + 1) || userVariable(t, i + 1))) {
                return true;
            }
            if (userVariable(t, i) && t.isPunct(i + 1, ':') && t.adjacent(i + 1) && t.isPunct(i + 2, '=')) {
                return true;
            }
        }
        return false;
    }

    /**
     * MariaDB: whether the statement takes a sequence's next value ({@code NEXT VALUE FOR s},
     * {@code nextval(s)}, {@code s.nextval}, {@code setval}). The session then keeps it for
     * {@code PREVIOUS VALUE FOR s}, per sequence, which only a session reset removes (no statement
     * discards it as {@code LAST_INSERT_ID(0)} does the insert id): it is session state.
     */
    static boolean takesSequenceValue(SqlLexer t, int s, int e) {
        for (int i = s; i < e; i++) {
            if (t.is(i, "NEXT") && t.is(i + 1, "VALUE") && t.is(i + 2, "FOR")
                    || (t.is(i, "nextval") || t.is(i, "setval")) && (t.isPunct(i + 1, '(') || i > s && t.isPunct(i - 1, '.'))) {
                return true;
            }
        }
        return false;
    }

    /** Whether the call of the function named at {@code i} leaves state on a session that outlives it. */
    private static boolean sessionCall(SqlLexer t, int i, int e, boolean pooler) {
        for (String f : SESSION_FUNCTIONS) {
            if (t.is(i, f)) {
                return !pooler || !(t.is(i, "set_config") && thirdArgumentTrue(t, i + 1, e));
            }
        }
        return pooler && (t.is(i, "currval") || t.is(i, "lastval"));
    }

    /** {@code (a, b, true)} from the parenthesis at {@code open}: set_config's is_local, literally true. */
    private static boolean thirdArgumentTrue(SqlLexer t, int open, int e) {
        int depth = 0;
        int commas = 0;
        for (int i = open; i < e; i++) {
            if (t.isPunct(i, '(')) {
                depth++;
            } else if (t.isPunct(i, ')')) {
                if (--depth == 0) {
                    return false;
                }
            } else if (depth == 1 && t.isPunct(i, ',')) {
                commas++;
                if (commas == 2) {
                    return t.kind(i + 1) == SqlLexer.Kind.WORD && t.is(i + 1, "true") && t.isPunct(i + 2, ')');
                }
            }
        }
        return false;
    }

    /** A MySQL user variable, {@code @x} or {@code @'x'}: the lexer makes it one word. */
    private static boolean userVariable(SqlLexer t, int i) {
        if (t.kind(i) != SqlLexer.Kind.WORD) {
            return false;
        }
        String w = t.text(i);
        return w.length() > 1 && w.charAt(0) == '@' && w.charAt(1) != '@';
    }

    static boolean contains(SqlLexer t, int s, int e, String word) {
        for (int i = s; i < e; i++) {
            if (t.is(i, word)) {
                return true;
            }
        }
        return false;
    }
}
