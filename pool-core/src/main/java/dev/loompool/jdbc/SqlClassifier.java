package dev.loompool.jdbc;

/**
 * Recognises, from the first keywords of a SQL text, the statements that open or end a
 * transaction or leave state on the session (DESIGN.md §4, "Binding"). It reads the text in place,
 * without allocating, because it runs on every statement. Only the first statement of a
 * multi-statement text is looked at, and procedures that change the session from inside are not
 * seen: for those, pin explicitly.
 */
final class SqlClassifier {

    /**
     * The last classification of each SQL string, by identity: applications pass the same String
     * instance for a statement over and over (a literal, a constant), so this is one array load on
     * the hot path. Shared and lossy; a race only costs a miss. No ThreadLocal.
     */
    private static final Classified[] RECENT = new Classified[1024];

    private record Classified(String sql, SqlEffect effect) {
    }

    private SqlClassifier() {
    }

    static SqlEffect classify(String sql) {
        int slot = System.identityHashCode(sql) & (RECENT.length - 1);
        Classified recent = RECENT[slot];
        if (recent != null && recent.sql == sql) {
            return recent.effect;
        }
        SqlEffect effect = classifyText(sql);
        RECENT[slot] = new Classified(sql, effect);
        return effect;
    }

    private static SqlEffect classifyText(String sql) {
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
        // Nearly every SELECT takes no lock: an intrinsic indexOf rules it out without a char-by-char scan.
        if (sql.indexOf("lock", from) < 0 && sql.indexOf("LOCK", from) < 0 && sql.indexOf("Lock", from) < 0) {
            return SqlEffect.NONE;
        }
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
        while (i < sql.length() && isWordChar(sql.charAt(i))) {
            i++;
        }
        return i;
    }

    /** ASCII first: SQL keywords are ASCII, and this runs on every statement. */
    private static boolean isWordChar(char c) {
        char lower = (char) (c | 0x20);
        if (lower >= 'a' && lower <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '@') {
            return true;
        }
        return c > 127 && Character.isLetterOrDigit(c);
    }

    /** Skips white space, comments, opening parentheses and semicolons. */
    private static int skipNoise(String sql, int i) {
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\u000B' || c == '(' || c == ';'
                    || c > 127 && Character.isWhitespace(c)) {
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
