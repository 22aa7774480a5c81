package dev.loompool.jdbc.internal.sql;

/**
 * A statement's first line with every literal replaced by {@code ?}, for logs, the endpoint and
 * Flight Recorder: what pinned a connection, without the passwords, tokens and personal data the
 * SQL may hold ({@code ALTER ROLE x PASSWORD '…'}, {@code SET app.token = '…'},
 * {@code WHERE email = '…'}). Only what can be proven SQL is shown: the text is lexed once per
 * reading the server may have ({@link SqlReading#all}: both backslash rules, every versioned comment
 * kind run or skipped), and a character shows only if it is SQL outside literals in every reading;
 * what any reading takes for a literal or comment text, and another for SQL, is hidden. The value of a
 * setting ({@code SET x TO v}, {@code SET @a = v}, {@code ALTER … SET x = v}) is hidden whatever its
 * spelling, and in the OTHER dialect, whose lexical rules the pool cannot know, everything from the
 * first quote, {@code [}, {@code //} or {@code /*} on. Comments are dropped (they may quote
 * anything). Runs only when somebody reads the result, never on the statement's path, so it may allocate.
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
        SqlReading[] readings = SqlReading.all(sql, dialect);
        if (readings == null) {
            return "?"; // too many versioned comment kinds to read every way: nothing is proven SQL
        }
        byte[] marks = null;
        for (SqlReading reading : readings) {
            byte[] r = new byte[sql.length()];
            mark(SqlLexer.lex(sql, dialect, reading), r, dialect);
            marks = marks == null ? r : agree(marks, r);
        }
        if (dialect == SqlDialect.OTHER) {
            hideFrom(sql, unproven(sql), marks);
        }
        return cut(render(sql, marks));
    }

    /**
     * A character stays SQL only if every reading reads it as SQL, and stays out of sight (a gap)
     * only if every reading skips it: what one reading takes for a literal or a comment and another
     * for SQL is hidden, since the pool cannot know which reading the server has.
     */
    private static byte[] agree(byte[] marks, byte[] other) {
        for (int c = 0; c < marks.length; c++) {
            if (marks[c] != other[c]) {
                marks[c] = LITERAL;
            }
        }
        return marks;
    }

    /**
     * The first character the lexer cannot prove that every other server reads as it does: any
     * quote ({@code '}, {@code "} is a string in SQLite, {@code `}), {@code [} (SQL Server's names, which
     * may hold a quote), {@code //} (H2's line comment) and {@code /*} (comments that nest or not, and
     * {@code /*!} that only MySQL runs). In the OTHER dialect everything from there on is hidden.
     */
    private static int unproven(String sql) {
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"' || c == '`' || c == '[' || c == '/' && i + 1 < sql.length()
                    && (sql.charAt(i + 1) == '/' || sql.charAt(i + 1) == '*')) {
                return i;
            }
        }
        return sql.length();
    }

    /** Hides all from {@code from} on but the line breaks, so that the line shown still ends with … when more follows. */
    private static void hideFrom(String sql, int from, byte[] marks) {
        for (int c = from; c < marks.length; c++) {
            marks[c] = sql.charAt(c) == '\n' || sql.charAt(c) == '\r' ? GAP : LITERAL;
        }
    }

    /** Marks each token's characters: a literal's as hidden, the others as SQL; what no token covers stays a gap. */
    private static void mark(SqlLexer t, byte[] marks, SqlDialect dialect) {
        boolean hideRest = false; // after the first TO or = of a SET: the setting's value, whatever it is lexically
        int statement = 0;
        for (int i = 0; i < t.count(); i++) {
            SqlLexer.Kind k = t.kind(i);
            if (k == SqlLexer.Kind.SEMICOLON) {
                hideRest = false;
                statement = i + 1;
            }
            boolean hide = hideRest && !t.isPunct(i, ',') && k != SqlLexer.Kind.SEMICOLON || literal(t, i, dialect);
            for (int c = t.start(i); c < t.end(i); c++) {
                marks[c] = hide ? LITERAL : SQL;
            }
            if (hiddenName(t, i)) { // @'x', @"x", @`x`: a MySQL user variable's or an account's host, quoted
                for (int c = t.start(i) + 1; c < t.end(i); c++) {
                    marks[c] = LITERAL;
                }
            }
            if (!hideRest && (t.is(i, "to") || t.isPunct(i, '=')) && setsAValue(t, statement, i)) {
                hideRest = true;
            }
        }
    }

    private static boolean hiddenName(SqlLexer t, int i) {
        if (t.kind(i) != SqlLexer.Kind.WORD || t.end(i) - t.start(i) < 2) {
            return false;
        }
        String text = t.text(i);
        return text.charAt(0) == '@' && "'\"`".indexOf(text.charAt(1)) >= 0;
    }

    /**
     * Whether the TO or = at {@code at} gives a setting its value: the statement starts with SET,
     * or with ALTER and has a SET before {@code at} ({@code ALTER ROLE r SET x TO v}, {@code ALTER SYSTEM SET}).
     * PostgreSQL's {@code SET x TO "v"} and {@code SET x TO v} take a name for the value, MySQL's
     * {@code SET @a = v} too: lexically not literals, but the value all the same.
     */
    private static boolean setsAValue(SqlLexer t, int statement, int at) {
        if (t.is(statement, "set")) {
            return true;
        }
        if (!t.is(statement, "alter")) {
            return false;
        }
        for (int i = statement + 1; i < at; i++) {
            if (t.is(i, "set")) {
                return true;
            }
        }
        return false;
    }

    private static boolean literal(SqlLexer t, int i, SqlDialect dialect) {
        SqlLexer.Kind k = t.kind(i);
        if (k == SqlLexer.Kind.STRING || k == SqlLexer.Kind.NUMBER) {
            return true;
        }
        if (k == SqlLexer.Kind.QUOTED) { // MySQL reads "x" as a string unless ANSI_QUOTES, which the pool cannot see
            return dialect == SqlDialect.MYSQL && t.text(i).charAt(0) == '"';
        }
        if (k == SqlLexer.Kind.WORD && i > 0 && t.kind(i - 1) == SqlLexer.Kind.NUMBER && t.end(i - 1) == t.start(i)) {
            return true; // the rest of a number: PostgreSQL 16 reads 4111_1111 as one
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
                int blank = out.length();
                while (blank > 0 && (out.charAt(blank - 1) == ' ' || out.charAt(blank - 1) == '\t')) {
                    blank--;
                }
                if (blank > 0 && out.charAt(blank - 1) == '?') {
                    out.setLength(blank); // hidden, blank, hidden: one ?, so that "SET @a = ? ? ?" reads as one value
                } else {
                    out.append('?');
                }
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
