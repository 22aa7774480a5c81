package dev.loompool.jdbc.internal.sql;

import java.util.Arrays;
import java.util.List;

/**
 * Cuts a SQL text into tokens, the way the database would: string literals, quoted identifiers,
 * dollar quotes and comments are skipped as wholes, so that nothing inside them is taken for SQL,
 * and MySQL's executable comments ({@code /*! … *}{@code /}, {@code /*M! … *}{@code /}) are read as
 * the SQL they are. Where the server's reading depends on what the pool does not track (a session
 * setting, the server's version), the caller lexes the text once per reading ({@link SqlReading}) and
 * the classification must hold under each. Runs only when a text is classified for the first time
 * (see {@link SqlClassifier}), so it may allocate; its cost is linear in the length of the text.
 */
public final class SqlLexer {

    enum Kind {
        /** A keyword or an unquoted identifier; MySQL variables ({@code @x}, {@code @@x}) included. */
        WORD,
        /** A quoted identifier ({@code "x"}, {@code `x`}); MySQL's double-quoted strings too. */
        QUOTED,
        /** A string literal, or a PostgreSQL dollar-quoted body. */
        STRING,
        NUMBER,
        /** One character of punctuation or an operator. */
        PUNCT,
        /** The end of a statement. */
        SEMICOLON
    }

    private final String sql;
    private final SqlDialect dialect;
    /**
     * Whether backslashes escape in plain string literals: MySQL's default and PostgreSQL's with
     * standard_conforming_strings off. A session setting the pool does not track, so a text with a
     * backslash is read both ways (see {@link SqlClassifier}).
     */
    private final boolean backslashStrings;
    /**
     * Which versioned comments ({@code /*!50700 … *}{@code /}, and MariaDB's {@code /*M!…}) run:
     * the server decides each by its version (MariaDB also skips 50700 to 99999, MySQL every
     * {@code /*M!}), so a text is read with every combination of its comment kinds.
     */
    private final SqlReading reading;
    /** A string, quoted name, block or executable comment, or dollar quote that the text does not close. */
    private boolean unterminated;
    /** Whether the last string token was PostgreSQL's E'…': a continuation of it is one too. */
    private boolean lastStringEscapes;
    private Kind[] kinds = new Kind[32];
    private int[] starts = new int[32];
    private int[] ends = new int[32];
    private int count;
    /** Inside a MySQL executable comment: its closing {@code *}{@code /} is not SQL. */
    private boolean executable;

    private SqlLexer(String sql, SqlDialect dialect, SqlReading reading) {
        this.sql = sql;
        this.dialect = dialect;
        this.backslashStrings = reading.backslashStrings();
        this.reading = reading;
    }

    /** Every versioned comment run. */
    static SqlLexer lex(String sql, SqlDialect dialect, boolean backslashStrings) {
        return lex(sql, dialect, new SqlReading(backslashStrings, List.of(), 0));
    }

    static SqlLexer lex(String sql, SqlDialect dialect, SqlReading reading) {
        SqlLexer lexer = new SqlLexer(sql, dialect, reading);
        lexer.run();
        if (lexer.executable) {
            lexer.unterminated = true;
        }
        return lexer;
    }

    /**
     * Whether something the text opened is still open at its end. A driver may join texts (MySQL
     * Connector/J's rewritten batches): what one leaves open takes in the next, so such a text is
     * not neutral whatever its tokens say.
     */
    boolean unterminated() {
        return unterminated;
    }

    /** The name token {@code i} spells: a word as written, a quoted name without its quotes. */
    String name(int i) {
        if (kinds[i] == Kind.QUOTED) {
            char q = sql.charAt(starts[i]);
            String inner = sql.substring(starts[i] + 1, Math.max(starts[i] + 1, ends[i] - 1));
            return inner.replace(String.valueOf(q) + q, String.valueOf(q));
        }
        return text(i);
    }

    int count() {
        return count;
    }

    Kind kind(int i) {
        return i < count ? kinds[i] : null;
    }

    /** Whether token {@code i} is the word or quoted name {@code name}, ignoring case. */
    boolean is(int i, String name) {
        if (i >= count || kinds[i] != Kind.WORD && kinds[i] != Kind.QUOTED) {
            return false;
        }
        int s = starts[i];
        int e = ends[i];
        if (kinds[i] == Kind.QUOTED) { // the name between the quotes
            s++;
            e--;
        }
        if (e - s != name.length()) {
            return false;
        }
        for (int k = 0; k < name.length(); k++) {
            if (foldAscii(sql.charAt(s + k)) != foldAscii(name.charAt(k))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Lower case for A–Z only, as both servers fold unquoted names: Java's case-insensitive
     * comparison would also take {@code ſ} for {@code s} and the Kelvin sign for {@code k}, so that
     * {@code PREPARE tranſaction} read as the two-phase {@code PREPARE TRANSACTION}.
     */
    public static char foldAscii(char c) {
        return c >= 'A' && c <= 'Z' ? (char) (c + 32) : c;
    }

    /** {@link #foldAscii} of every character. */
    public static String foldAscii(String s) {
        StringBuilder b = null;
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            if (c >= 'A' && c <= 'Z') {
                if (b == null) {
                    b = new StringBuilder(s);
                }
                b.setCharAt(k, (char) (c + 32));
            }
        }
        return b == null ? s : b.toString();
    }

    /** Whether token {@code i} is the punctuation character {@code c}. */
    boolean isPunct(int i, char c) {
        return i < count && kinds[i] == Kind.PUNCT && sql.charAt(starts[i]) == c;
    }

    /** Whether tokens {@code i} and {@code i + 1} touch: {@code :=} is two tokens. */
    boolean adjacent(int i) {
        return i + 1 < count && ends[i] == starts[i + 1];
    }

    String text(int i) {
        return sql.substring(starts[i], ends[i]);
    }

    /** Where token {@code i} starts in the text, and (below) where it ends: for {@link SqlMask}. */
    int start(int i) {
        return starts[i];
    }

    int end(int i) {
        return ends[i];
    }

    private void run() {
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\u000B') {
                i++; // only ASCII: the servers read any other character as part of a name
            } else if (c == '-' && at(i + 1, '-') && lineComment(i + 2)) {
                i = lineEnd(i);
            } else if (c == '#' && dialect == SqlDialect.MYSQL) {
                i = lineEnd(i);
            } else if (c == '/' && at(i + 1, '*')) {
                i = comment(i);
            } else if (c == '*' && executable && at(i + 1, '/')) {
                executable = false; // the end of /*! … */: what it held was SQL
                i += 2;
            } else if (c == '\'') {
                boolean escapes = backslashes(i);
                i = add(Kind.STRING, i, quoted(i, '\'', escapes));
                lastStringEscapes = escapes;
            } else if (c == '"') {
                i = add(Kind.QUOTED, i, quoted(i, '"', dialect == SqlDialect.MYSQL && backslashStrings));
            } else if (c == '`' && dialect != SqlDialect.POSTGRES) {
                i = add(Kind.QUOTED, i, quoted(i, '`', false));
            } else if (c == '$' && dialect != SqlDialect.MYSQL && dollarTagEnd(i) > 0) {
                i = add(Kind.STRING, i, dollarQuoted(i));
                lastStringEscapes = false;
            } else if (c == ';') {
                i = add(Kind.SEMICOLON, i, i + 1);
            } else if (c >= '0' && c <= '9') {
                int e = i;
                while (e < n && (Character.isLetterOrDigit(sql.charAt(e)) || sql.charAt(e) == '.')) {
                    e++;
                }
                i = add(Kind.NUMBER, i, e);
            } else if (c == '@') {
                i = add(Kind.WORD, i, variableEnd(i));
            } else if (wordStart(c) || c == '$') {
                int e = i + 1;
                while (e < n && wordPart(sql.charAt(e))) {
                    e++;
                }
                i = add(Kind.WORD, i, e);
            } else {
                i = add(Kind.PUNCT, i, i + 1);
            }
        }
    }

    private boolean at(int i, char c) {
        return i < sql.length() && sql.charAt(i) == c;
    }

    /**
     * MySQL takes {@code --} for a comment only when white space, a control character or the end
     * follows ({@code my_isspace || my_iscntrl}).
     */
    private boolean lineComment(int after) {
        if (dialect != SqlDialect.MYSQL || after >= sql.length()) {
            return true;
        }
        char c = sql.charAt(after);
        return c <= ' ' || c == 0x7f;
    }

    /** Where a line comment ends: MySQL's at a line feed only, a lone carriage return does not end it. */
    private int lineEnd(int i) {
        boolean crEnds = dialect != SqlDialect.MYSQL;
        while (i < sql.length() && sql.charAt(i) != '\n' && !(crEnds && sql.charAt(i) == '\r')) {
            i++;
        }
        return i;
    }

    /** A block comment; an executable one (MySQL, and everywhere but PostgreSQL) opens SQL instead. */
    private int comment(int i) {
        int n = sql.length();
        if (dialect != SqlDialect.POSTGRES && !executable) {
            boolean mariaDb = (at(i + 2, 'M') || at(i + 2, 'm')) && at(i + 3, '!');
            if (at(i + 2, '!') || mariaDb) {
                String version = SqlReading.versionAt(sql, i);
                if (version == null || reading.runs(version)) {
                    executable = true; // what it holds is SQL, after the version it is meant for
                    return (mariaDb ? i + 4 : i + 3) + (version == null ? 0 : version.length() - (mariaDb ? 1 : 0));
                }
            }
        }
        if (dialect == SqlDialect.MYSQL) {
            int close = sql.indexOf("*/", i + 2);
            unterminated |= close < 0;
            return close < 0 ? n : close + 2;
        }
        int depth = 1; // PostgreSQL (and the SQL standard) nest block comments
        int j = i + 2;
        while (j < n && depth > 0) {
            if (sql.charAt(j) == '/' && at(j + 1, '*')) {
                depth++;
                j += 2;
            } else if (sql.charAt(j) == '*' && at(j + 1, '/')) {
                depth--;
                j += 2;
            } else {
                j++;
            }
        }
        unterminated |= depth > 0;
        return j;
    }

    /**
     * Plain strings in the reading chosen, and PostgreSQL's E'…' strings always, escape with a
     * backslash; so does a string that continues an E'…' one across a newline ({@code E'a'\n'b'} is
     * one E string to the server). Any string right after an E string is taken for its continuation:
     * where the server would not continue it, two strings in a row are a syntax error and nothing runs.
     */
    private boolean backslashes(int quote) {
        if (backslashStrings) {
            return true;
        }
        if (dialect == SqlDialect.POSTGRES && count > 0 && kinds[count - 1] == Kind.STRING && lastStringEscapes) {
            return true;
        }
        return count > 0 && kinds[count - 1] == Kind.WORD && ends[count - 1] == quote
                && ends[count - 1] - starts[count - 1] == 1 && (sql.charAt(quote - 1) | 0x20) == 'e';
    }

    /** The end of a quoted token; a doubled quote stands for itself. Unclosed: the rest of the text. */
    private int quoted(int i, char quote, boolean backslash) {
        int n = sql.length();
        int j = i + 1;
        while (j < n) {
            char c = sql.charAt(j);
            if (backslash && c == '\\') {
                j += 2;
            } else if (c == quote) {
                if (at(j + 1, quote)) {
                    j += 2;
                } else {
                    return j + 1;
                }
            } else {
                j++;
            }
        }
        unterminated = true;
        return n;
    }

    /** The end of a {@code $tag$} opening at {@code i}, or -1 ({@code $1} is a parameter). */
    private int dollarTagEnd(int i) {
        int j = i + 1;
        if (j < sql.length() && sql.charAt(j) >= '0' && sql.charAt(j) <= '9') {
            return -1;
        }
        while (j < sql.length() && sql.charAt(j) != '$' && wordPart(sql.charAt(j))) {
            j++;
        }
        return at(j, '$') ? j + 1 : -1;
    }

    private int dollarQuoted(int i) {
        int tagEnd = dollarTagEnd(i);
        int close = sql.indexOf(sql.substring(i, tagEnd), tagEnd);
        unterminated |= close < 0;
        return close < 0 ? sql.length() : close + (tagEnd - i);
    }

    /**
     * A MySQL variable: {@code @@name} (system), or {@code @name}, {@code @a.b}, {@code @'x'},
     * {@code @`x`}, {@code @"x"} (user, the quoted ones in MySQL only), one token whatever its spelling.
     */
    private int variableEnd(int i) {
        int e = i + 1;
        if (at(e, '@')) {
            e++;
        } else if (dialect == SqlDialect.MYSQL && (at(e, '\'') || at(e, '`') || at(e, '"'))) {
            // only MySQL names a variable with quotes: to PostgreSQL @ is an operator, @'…' a string after it
            return quoted(e, sql.charAt(e), sql.charAt(e) != '`' && backslashStrings);
        }
        while (e < sql.length() && (wordPart(sql.charAt(e)) || sql.charAt(e) == '.' && !at(i + 1, '@'))) {
            e++;
        }
        return e;
    }

    /** Any character outside ASCII counts as a letter, as PostgreSQL and MySQL read names. */
    private static boolean wordStart(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c > 127;
    }

    private static boolean wordPart(char c) {
        return wordStart(c) || c >= '0' && c <= '9' || c == '$';
    }

    private int add(Kind kind, int start, int end) {
        if (count == kinds.length) {
            kinds = Arrays.copyOf(kinds, count * 2);
            starts = Arrays.copyOf(starts, count * 2);
            ends = Arrays.copyOf(ends, count * 2);
        }
        kinds[count] = kind;
        starts[count] = start;
        ends[count] = end;
        count++;
        return end;
    }
}
