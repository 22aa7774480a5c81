package dev.loompool.jdbc;

/**
 * Recognises, from the first keywords of a SQL text, the statements that open or end a
 * transaction or leave state on the session (DESIGN.md §4, "Binding"). It reads the text in place,
 * without allocating, because it runs on every statement. Only the first statement of a
 * multi-statement text is looked at, and procedures that change the session from inside are not
 * seen: for those, pin explicitly.
 */
final class SqlClassifier {

    private SqlClassifier() {
    }

    static SqlEffect classify(String sql) {
        int i = skipNoise(sql, 0);
        int end = wordEnd(sql, i);
        if (end == i) {
            return SqlEffect.NONE;
        }
        int next = skipNoise(sql, end);
        switch (Character.toUpperCase(sql.charAt(i))) {
            case 'B':
                return is(sql, i, end, "BEGIN") ? SqlEffect.BEGIN : SqlEffect.NONE;
            case 'S':
                if (is(sql, i, end, "START")) {
                    return word(sql, next, "TRANSACTION") ? SqlEffect.BEGIN : SqlEffect.NONE;
                }
                if (is(sql, i, end, "SET")) {
                    return classifySet(sql, next);
                }
                return is(sql, i, end, "SELECT") ? locks(sql, end) : SqlEffect.NONE;
            case 'C':
                if (is(sql, i, end, "COMMIT")) {
                    return SqlEffect.END;
                }
                if (is(sql, i, end, "CREATE")) {
                    return createsTemporary(sql, next) ? SqlEffect.SESSION : SqlEffect.NONE;
                }
                return is(sql, i, end, "CALL") ? locks(sql, end) : SqlEffect.NONE;
            case 'R':
                if (is(sql, i, end, "ROLLBACK")) {
                    return word(sql, next, "TO") ? SqlEffect.NONE : SqlEffect.END; // TO SAVEPOINT stays inside
                }
                return is(sql, i, end, "RESET") ? SqlEffect.SESSION : SqlEffect.NONE;
            case 'E':
                return is(sql, i, end, "END") ? SqlEffect.END : SqlEffect.NONE;
            case 'L':
                // PostgreSQL LISTEN; MySQL LOCK TABLES (held by the session). PostgreSQL's LOCK
                // TABLE needs a transaction, which pins anyway.
                return is(sql, i, end, "LISTEN") || is(sql, i, end, "LOCK") ? SqlEffect.SESSION : SqlEffect.NONE;
            case 'U':
                return is(sql, i, end, "USE") ? SqlEffect.SESSION : SqlEffect.NONE;
            case 'P':
                return is(sql, i, end, "PREPARE") ? SqlEffect.SESSION : SqlEffect.NONE;
            case 'D':
                // DECLARE … CURSOR WITH HOLD outlives its transaction; DO blocks may take locks.
                if (is(sql, i, end, "DECLARE")) {
                    return SqlEffect.SESSION;
                }
                return is(sql, i, end, "DO") ? locks(sql, end) : SqlEffect.NONE;
            default:
                return SqlEffect.NONE;
        }
    }

    /** SET: autocommit switches; SET TRANSACTION and SET LOCAL last only for the transaction. */
    private static SqlEffect classifySet(String sql, int i) {
        int end = wordEnd(sql, i);
        if (is(sql, i, end, "TRANSACTION") || is(sql, i, end, "LOCAL")) {
            return SqlEffect.NONE;
        }
        if (is(sql, i, end, "AUTOCOMMIT") || is(sql, i, end, "@@AUTOCOMMIT")) {
            int v = skipNoise(sql, end);
            if (v < sql.length() && (sql.charAt(v) == '=' || sql.charAt(v) == ':')) {
                v = skipNoise(sql, v + (sql.startsWith(":=", v) ? 2 : 1));
            }
            int valueEnd = wordEnd(sql, v);
            if (is(sql, v, valueEnd, "0") || is(sql, v, valueEnd, "OFF") || is(sql, v, valueEnd, "FALSE")) {
                return SqlEffect.AUTOCOMMIT_OFF;
            }
            return SqlEffect.AUTOCOMMIT_ON;
        }
        return SqlEffect.SESSION; // SET search_path, SET NAMES, SET @var, SET SESSION …
    }

    /** CREATE [GLOBAL | LOCAL] {TEMP | TEMPORARY} … */
    private static boolean createsTemporary(String sql, int i) {
        int end = wordEnd(sql, i);
        if (is(sql, i, end, "GLOBAL") || is(sql, i, end, "LOCAL")) {
            i = skipNoise(sql, end);
            end = wordEnd(sql, i);
        }
        return is(sql, i, end, "TEMP") || is(sql, i, end, "TEMPORARY");
    }

    /**
     * Session-level advisory locks: PostgreSQL pg_advisory_lock / pg_try_advisory_lock (not the
     * _xact_ kinds, which end with the transaction) and MySQL GET_LOCK.
     */
    private static SqlEffect locks(String sql, int from) {
        for (int i = from; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if ((c == '_' || c == 'g' || c == 'G')
                    && (sql.regionMatches(true, i, "_advisory_lock", 0, 14) // also _shared: session-level too
                            || sql.regionMatches(true, i, "get_lock(", 0, 9)
                            || sql.regionMatches(true, i, "get_lock (", 0, 10))) {
                return SqlEffect.SESSION;
            }
        }
        return SqlEffect.NONE;
    }

    private static boolean word(String sql, int i, String keyword) {
        return is(sql, i, wordEnd(sql, i), keyword);
    }

    private static boolean is(String sql, int start, int end, String keyword) {
        return end - start == keyword.length() && sql.regionMatches(true, start, keyword, 0, keyword.length());
    }

    private static int wordEnd(String sql, int i) {
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '_' || c == '@')) {
                break;
            }
            i++;
        }
        return i;
    }

    /** Skips white space, comments, opening parentheses and semicolons. */
    private static int skipNoise(String sql, int i) {
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c) || c == '(' || c == ';') {
                i++;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                while (i < n && sql.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int close = sql.indexOf("*/", i + 2);
                i = close < 0 ? n : close + 2;
            } else {
                break;
            }
        }
        return i;
    }
}
