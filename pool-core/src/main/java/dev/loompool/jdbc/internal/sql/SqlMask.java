package dev.loompool.jdbc.internal.sql;

/**
 * A statement's first line with every literal replaced by {@code ?}, for logs, the endpoint and
 * Flight Recorder: what pinned a connection, without the passwords, tokens and personal data the
 * SQL may hold ({@code ALTER ROLE x PASSWORD '…'}, {@code SET app.token = '…'},
 * {@code WHERE email = '…'}). The text is read as the classifier reads it ({@link SqlLexer}), once
 * per backslash rule when it has a backslash: a character that is inside a literal in either
 * reading is hidden, so a quote the server reads differently cannot let a literal's end show.
 * Comments are dropped (they may quote anything). Runs only when somebody reads the result, never
 * on the statement's path, so it may allocate.
 */
public final class SqlMask {

    /** The longest first line shown; longer ones are cut and end with {@code …}. */
    public static final int MAX_LENGTH = 200;

    private static final byte GAP = 0;
    private static final byte SQL = 1;
    private static final byte LITERAL = 2;

    private SqlMask() {
    }

    /**
     * The first line of {@code sql} as the server of {@code dialect} reads it, its string, dollar-quoted,
     * {@code E''}/{@code X''}/{@code B''}/{@code N''} and numeric literals (and MySQL's double-quoted strings)
     * each replaced by {@code ?}, comments dropped, cut at {@link #MAX_LENGTH}; null for null.
     */
    public static String firstLine(String sql, SqlDialect dialect) {
        if (sql == null) {
            return null;
        }
        byte[] marks = new byte[sql.length()];
        mark(SqlLexer.lex(sql, dialect, false), marks, dialect);
        if (sql.indexOf('\\') >= 0) {
            mark(SqlLexer.lex(sql, dialect, true), marks, dialect);
        }
        return cut(render(sql, marks));
    }

    /** Marks each token's characters: a literal's as hidden in any reading, the others as SQL unless hidden. */
    private static void mark(SqlLexer t, byte[] marks, SqlDialect dialect) {
        for (int i = 0; i < t.count(); i++) {
            byte m = literal(t, i, dialect) ? LITERAL : SQL;
            for (int c = t.start(i); c < t.end(i); c++) {
                if (marks[c] < m) {
                    marks[c] = m;
                }
            }
        }
    }

    private static boolean literal(SqlLexer t, int i, SqlDialect dialect) {
        SqlLexer.Kind k = t.kind(i);
        if (k == SqlLexer.Kind.STRING || k == SqlLexer.Kind.NUMBER) {
            return true;
        }
        if (k == SqlLexer.Kind.QUOTED) { // MySQL reads "x" as a string unless ANSI_QUOTES, which the pool cannot see
            return dialect == SqlDialect.MYSQL && t.text(i).charAt(0) == '"';
        }
        // E'…', X'…', B'…', N'…': the letter belongs to the literal
        return k == SqlLexer.Kind.WORD && t.end(i) - t.start(i) == 1 && t.kind(i + 1) == SqlLexer.Kind.STRING
                && t.start(i + 1) == t.end(i) && "eEbBxXnN".indexOf(t.text(i).charAt(0)) >= 0;
    }

    /** A run of hidden characters becomes one {@code ?}; a gap that is not only white space (a comment) one space. */
    private static String render(String sql, byte[] marks) {
        StringBuilder out = new StringBuilder(Math.min(sql.length(), MAX_LENGTH + 16));
        int n = sql.length();
        int i = 0;
        while (i < n && out.length() <= MAX_LENGTH + 1) { // enough to know whether the cut line is longer
            int j = i;
            while (j < n && marks[j] == marks[i]) {
                j++;
            }
            if (marks[i] == LITERAL) {
                out.append('?');
            } else if (marks[i] == SQL || sql.substring(i, j).isBlank()) {
                out.append(sql, i, j);
            } else {
                out.append(' ');
            }
            i = j;
        }
        return out.toString();
    }

    private static String cut(String masked) {
        String s = masked.strip();
        int lineEnd = -1;
        for (int i = 0; i < s.length() && lineEnd < 0; i++) {
            if (s.charAt(i) == '\n' || s.charAt(i) == '\r') {
                lineEnd = i;
            }
        }
        boolean more = lineEnd >= 0;
        if (more) {
            s = s.substring(0, lineEnd).stripTrailing();
        }
        if (s.length() > MAX_LENGTH) {
            s = s.substring(0, MAX_LENGTH).stripTrailing();
            more = true;
        }
        return more ? s + "…" : s;
    }
}
