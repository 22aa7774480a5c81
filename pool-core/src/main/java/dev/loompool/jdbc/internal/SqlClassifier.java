package dev.loompool.jdbc.internal;

import dev.loompool.jdbc.internal.SqlEffect.Tx;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

/**
 * Finds what a SQL text does to the pins of the handle that runs it (DESIGN.md §4, "Classifying
 * SQL"): every statement of a multi-statement text, read by {@link SqlLexer} so that literals,
 * quoted names and comments hide nothing; state-changing functions wherever they appear;
 * procedural blocks taken as unknowable, which pins. When in doubt it says the text pins.
 *
 * <p>Whether a transaction is open is read from the driver where it can be ({@link WireState});
 * there, only the session side of the answer is used.
 */
final class SqlClassifier {

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

    /**
     * The last classification of each SQL string, by identity: applications pass the same String
     * instance for a statement over and over (a literal, a constant), so this is one array load on
     * the hot path. Shared and lossy; a race only costs a miss. No ThreadLocal.
     */
    private final Classified[] recent = new Classified[1024];
    /** Set once the pool's first connection said which database it is; before that nothing runs SQL. */
    private volatile SqlDialect dialect;
    /** The functions a neutral statement may call: read from the catalog on PostgreSQL. */
    private volatile SqlFunctions functions;
    /** When the function table is read again ({@link #refreshDue}). */
    private volatile long refreshAt;
    /** Whether a table was read from the catalog: only then is it read again. */
    private volatile boolean catalogRead;
    /** DDL ran through the pool since the table was read. */
    private volatile boolean catalogChanged;
    private final AtomicBoolean refreshing = new AtomicBoolean();

    private record Classified(String sql, SqlEffect effect) {
    }

    SqlClassifier(SqlDialect dialect) {
        this.dialect = dialect;
        this.functions = SqlFunctions.known(dialect);
    }

    /** The database is known: read by its rules from now on. */
    void useDialect(SqlDialect d) {
        if (d != dialect) {
            dialect = d;
            functions = SqlFunctions.known(d);
            Arrays.fill(recent, null);
        }
    }

    /**
     * The function table of the pool's database, read at {@code now}: texts classified with the
     * one before are classified again. Statements prepared before keep their answer.
     */
    void useFunctions(SqlFunctions f, long now) {
        functions = f;
        refreshAt = now + SqlFunctions.REFRESH_NANOS;
        catalogRead = true;
        Arrays.fill(recent, null);
    }

    /**
     * Whether the function table should be read again: it is older than {@link SqlFunctions#REFRESH_NANOS},
     * or DDL ran through the pool since. True for one caller at a time, which must then call
     * {@link #refreshDone}. PostgreSQL only: the others' tables are the builtins. Two volatile reads
     * on a connection's return.
     */
    boolean refreshDue(long now) {
        if (catalogRead && (catalogChanged || now - refreshAt >= 0) && dialect == SqlDialect.POSTGRES
                && refreshing.compareAndSet(false, true)) {
            catalogChanged = false; // DDL from now on asks for the next read
            return true;
        }
        return false;
    }

    /** The refresh that {@link #refreshDue} granted ended, with or without a new table. */
    void refreshDone(long now, SqlFunctions f) {
        if (f != null) {
            useFunctions(f, now);
        } else {
            refreshAt = now + SqlFunctions.REFRESH_NANOS / 4; // try again soon; the old table stays
        }
        refreshing.set(false);
    }

    /**
     * After SQL that may define or change a function, a view or an operator ({@code CREATE},
     * {@code ALTER}, {@code DROP}, {@code COMMENT} aside): the table is read again when the
     * connection that ran it comes back.
     */
    void noteCatalogChange(String sql) {
        if (catalogRead && dialect == SqlDialect.POSTGRES) {
            SqlLexer t = SqlLexer.lex(sql, dialect, false);
            for (int i = 0; i < t.count(); i++) {
                if ((i == 0 || t.kind(i - 1) == SqlLexer.Kind.SEMICOLON)
                        && (t.is(i, "CREATE") || t.is(i, "ALTER") || t.is(i, "DROP") || t.is(i, "DO"))) {
                    catalogChanged = true;
                    return;
                }
            }
        }
    }

    SqlEffect classify(String sql) {
        if (sql == null) {
            return SqlEffect.NONE;
        }
        int slot = System.identityHashCode(sql) & (recent.length - 1);
        Classified hit = recent[slot];
        if (hit != null && hit.sql == sql) {
            return hit.effect;
        }
        SqlEffect effect = classifyText(sql);
        recent[slot] = new Classified(sql, effect);
        return effect;
    }

    /**
     * Whether {@code sql}, already classified as session SQL, may leave what no session reset
     * removes and nothing on the session shows: PostgreSQL's {@code LOAD} (DISCARD ALL cannot
     * unload a library), dblink's connections (DISCARD ALL closes none: the next borrower's remote
     * work would go on in the last one's remote transaction) and {@code CREATE EXTENSION} (which
     * loads the extension's library). The connection is then retired on return. The words are looked
     * for in the whole text, literals and dollar-quoted bodies included: a {@code DO} block or a
     * {@code query_to_xml} runs SQL it holds as a string ({@code EXECUTE 'LOAD …'}). A hook of its own:
     * the classification above does not change, and it is asked only of session SQL, never on the
     * common path.
     */
    boolean unresettable(String sql) {
        return sql != null && dialect == SqlDialect.POSTGRES && UNRESETTABLE.matcher(sql).find();
    }

    private static final Pattern UNRESETTABLE =
            Pattern.compile("(?i)(?<![a-z0-9_$])(load|dblink_connect(_u)?|extension)(?![a-z0-9_$])");

    /**
     * Every reading of the text the server may take ({@link SqlLexer#readings}: the backslash rule,
     * versioned comments run or skipped), and the answer pins for whatever any reading finds.
     */
    SqlEffect classifyText(String sql) {
        return classifyText(sql, Behind.NOTHING);
    }

    /**
     * How a text whose {@link #classify} says session, or reads a value of an earlier statement,
     * reads behind a pooler in transaction mode, which keeps no session for the pool to hold: only
     * what the rules name as session state is refused there (the allowlist would refuse DDL and
     * every function the pool does not know), and what is only the session's for the pool's sake
     * passes, {@code set_config(…, true)}. {@code currval} and {@code lastval} do not: the value
     * they would read may be another client's, even inside a transaction. Not cached: the rare path.
     */
    SqlEffect classifyBehindPooler(String sql) {
        return classifyText(sql, Behind.POOLER);
    }

    /** What stands between the pool and the sessions the SQL runs in. */
    private enum Behind {
        NOTHING,
        POOLER
    }

    private SqlEffect classifyText(String sql, Behind behind) {
        SqlDialect dialect = this.dialect;
        SqlFunctions functions = this.functions;
        SqlEffect effect = null;
        for (SqlLexer.Reading r : SqlLexer.readings(sql, dialect)) {
            SqlEffect one = classify(SqlLexer.lex(sql, dialect, r), dialect, behind, functions);
            if (effect == null) {
                effect = one;
            } else {
                Tx tx = effect.tx == one.tx ? effect.tx
                        : effect.tx == Tx.OPEN || one.tx == Tx.OPEN ? Tx.OPEN : Tx.SAME; // an end only if all agree
                effect = SqlEffect.of(effect.session || one.session, tx, effect.values | one.values);
            }
        }
        return effect;
    }

    /** Every statement in turn: session state from any of them, the transaction as the last leaves it. */
    private static SqlEffect classify(SqlLexer t, SqlDialect dialect, Behind behind, SqlFunctions functions) {
        boolean session = false;
        Tx tx = Tx.SAME;
        int values = 0;
        boolean left = false; // a statement of this text left a value, which a later one may read
        boolean first = true;
        boolean stored = false; // after CREATE … BEGIN: a stored body, which does not run now
        boolean body = false; // after CREATE … BEGIN or a compound statement: the rest is a block's body
        for (int start = 0; start < t.count(); ) {
            int end = start;
            while (end < t.count() && t.kind(end) != SqlLexer.Kind.SEMICOLON) {
                end++;
            }
            if (end > start) {
                SqlEffect e = statement(t, start, end, dialect, behind, functions);
                session |= e.session;
                int v = stored ? 0 : StatementValues.of(t, start, end, dialect);
                if (!first) {
                    v &= ~SqlEffect.READS_LAST; // the statement before it is this text's own
                }
                if (left) {
                    v &= ~SqlEffect.READS_KEPT; // an earlier statement of this text left what it reads
                }
                left |= (v & SqlEffect.LEAVES) != 0;
                values |= v;
                if (!body && e.tx == Tx.ENDED) {
                    values &= ~SqlEffect.LEAVES; // like commit(): a value is not kept past the end of its transaction
                }
                first = false;
                stored |= t.is(start, "CREATE") && contains(t, start, end, "BEGIN");
                if (!body && e.tx != Tx.SAME) {
                    tx = e.tx;
                }
                body |= t.is(start, "CREATE") && contains(t, start, end, "BEGIN") || compound(t, start, dialect);
            }
            start = end + 1;
        }
        return SqlEffect.of(session, tx, values);
    }

    /**
     * What the rules know of a statement (the transaction, and the session state they name), and
     * then the allowlist: a statement not proven neutral is session state; a compound or procedural
     * one may leave a transaction open, too.
     */
    private static SqlEffect statement(SqlLexer t, int s, int e, SqlDialect dialect, Behind behind,
            SqlFunctions functions) {
        SqlEffect known = leading(t, s, e, dialect);
        if (!known.session && touchesSession(t, s, e, behind)) {
            known = SqlEffect.of(true, known.tx);
        }
        if (behind == Behind.POOLER || known.session || SqlAllowlist.neutral(t, s, e, dialect, functions)) {
            return known;
        }
        return compound(t, s, dialect) ? SqlEffect.SESSION_BEGIN : SqlEffect.of(true, known.tx);
    }

    /**
     * A compound statement MySQL and MariaDB run as one, whatever its body does: {@code IF}, {@code CASE},
     * {@code WHILE}, {@code REPEAT}, {@code FOR}, {@code LOOP}, a labelled block, {@code BEGIN NOT ATOMIC}.
     */
    private static boolean compound(SqlLexer t, int s, SqlDialect dialect) {
        if (t.is(s, "BEGIN") && t.is(s + 1, "NOT")) {
            return true;
        }
        if (dialect == SqlDialect.POSTGRES) {
            return false;
        }
        return t.is(s, "IF") || t.is(s, "CASE") || t.is(s, "WHILE") || t.is(s, "REPEAT") || t.is(s, "FOR")
                || t.is(s, "LOOP") || t.kind(s) == SqlLexer.Kind.WORD && t.isPunct(s + 1, ':') && !t.isPunct(s + 2, '=');
    }

    /** What the statement's first keywords say. */
    private static SqlEffect leading(SqlLexer t, int s, int e, SqlDialect dialect) {
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
            return t.is(n, "TRANSACTION") ? SqlEffect.BEGIN : SqlEffect.NONE;
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
    private static boolean touchesSession(SqlLexer t, int s, int e, Behind behind) {
        for (int i = s; i < e; i++) {
            SqlLexer.Kind k = t.kind(i);
            if (k != SqlLexer.Kind.WORD && k != SqlLexer.Kind.QUOTED) {
                continue;
            }
            if (t.isPunct(i + 1, '(') && sessionCall(t, i, e, behind)) {
                return true;
            }
            if (behind == Behind.POOLER && t.is(i, "PREVIOUS") && t.is(i + 1, "VALUE") && t.is(i + 2, "FOR")) {
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

    /** Whether the call of the function named at {@code i} leaves state on a session that outlives it. */
    private static boolean sessionCall(SqlLexer t, int i, int e, Behind behind) {
        for (String f : SESSION_FUNCTIONS) {
            if (t.is(i, f)) {
                return behind == Behind.NOTHING || !(t.is(i, "set_config") && thirdArgumentTrue(t, i + 1, e));
            }
        }
        return behind == Behind.POOLER && (t.is(i, "currval") || t.is(i, "lastval"));
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

    private static boolean contains(SqlLexer t, int s, int e, String word) {
        for (int i = s; i < e; i++) {
            if (t.is(i, word)) {
                return true;
            }
        }
        return false;
    }
}
