package dev.loompool.jdbc.internal.sql;

import dev.loompool.jdbc.internal.sql.SqlEffect.Tx;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

/**
 * Finds what a SQL text does to the pins of the handle that runs it (DESIGN.md §4, "Classifying
 * SQL: an allowlist"): every statement of a multi-statement text, in every reading the server may
 * take ({@link SqlLexer#readings}). A statement is session state unless {@link SqlAllowlist} proves
 * it neutral with the pool's {@link SqlFunctions}; {@link SqlRules} give the transaction and the
 * reason. Compound and procedural statements are unknowable: they pin, and may leave a
 * transaction open.
 *
 * <p>Whether a transaction is open is read from the driver where it can be ({@link WireState});
 * there, only the session side of the answer is used.
 */
public final class SqlClassifier {

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
    /** Counts the tables that differed from the one before: a statement prepared under another one pins. */
    private volatile int generation;
    /** When the function table is read again ({@link #refreshDue}). */
    private volatile long refreshAt;
    /** Whether a table was read from the catalog: only then is it read again. */
    private volatile boolean catalogRead;
    /**
     * The first read of the catalog failed and none has succeeded since: the table is the built-in
     * one, which knows no view, trigger or operator of the database, so no text is proved neutral.
     */
    private volatile boolean unknown;
    /** DDL ran through the pool since the table was read. */
    private volatile boolean catalogChanged;
    private final AtomicBoolean refreshing = new AtomicBoolean();

    private record Classified(String sql, SqlEffect effect) {
    }

    public SqlClassifier(SqlDialect dialect) {
        this.dialect = dialect;
        this.functions = SqlFunctions.known(dialect);
    }

    /** The database is known: read by its rules from now on. */
    public void useDialect(SqlDialect d) {
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
    public void useFunctions(SqlFunctions f, long now) {
        if (!f.sameAs(functions)) {
            generation++; // one writer at a time: the start, or the refresh refreshDue granted
        }
        functions = f;
        refreshAt = now + SqlFunctions.REFRESH_NANOS;
        catalogRead = true;
        unknown = false;
        Arrays.fill(recent, null);
    }

    /**
     * Whether the function table should be read again: it is older than {@link SqlFunctions#REFRESH_NANOS},
     * or DDL ran through the pool since. True for one caller at a time, which must then call
     * {@link #refreshDone}. PostgreSQL, MySQL and MariaDB: others have no catalog read. Two volatile reads
     * on a connection's return.
     */
    public boolean refreshDue(long now) {
        if (catalogRead && (catalogChanged || now - refreshAt >= 0) && dialect != SqlDialect.OTHER
                && refreshing.compareAndSet(false, true)) {
            catalogChanged = false; // DDL from now on asks for the next read
            return true;
        }
        return false;
    }

    /** Whether no read of the catalog has succeeded though one was tried ({@link #catalogReadFailed}). One volatile read. */
    public boolean catalogUnknown() {
        return unknown;
    }

    public int generation() {
        return generation;
    }

    /** Whether the catalog still has to be read: the pool's first connection (a replica's, too) reads it. */
    public boolean needsCatalog() {
        return !catalogRead;
    }

    /** The first read failed: nothing is known (every statement pins), and the next return reads again. */
    public void catalogReadFailed(long now) {
        unknown = true;
        refreshAt = now;
        catalogRead = true;
        catalogChanged = true;
    }

    /**
     * DDL ran on a connection that is now back (after its commit or rollback): the table is read
     * on it whatever another reader saw before that commit. If a read is under way, the next return reads.
     */
    public boolean refreshForced() {
        if (refreshing.compareAndSet(false, true)) {
            catalogChanged = false;
            return true;
        }
        catalogChanged = true;
        return false;
    }

    /** The refresh that {@link #refreshDue} granted ended, with or without a new table. */
    public void refreshDone(long now, SqlFunctions f) {
        if (f != null) {
            useFunctions(f, now);
        } else {
            refreshAt = now + SqlFunctions.REFRESH_NANOS / 4; // try again soon; the old table stays
        }
        refreshing.set(false);
    }

    /**
     * After SQL that may define or change a function, a view or an operator ({@code CREATE},
     * {@code ALTER}, {@code DROP}, {@code DO}, MySQL's compound blocks): the table is read again
     * on the next return, and again when the connection that ran it comes back (by then its
     * transaction is over: a read before its commit did not see it). True if it is such SQL.
     */
    public boolean noteCatalogChange(String sql) {
        if (catalogRead && dialect != SqlDialect.OTHER) {
            SqlLexer t = SqlLexer.lex(sql, dialect, false);
            for (int i = 0; i < t.count(); i++) {
                if ((i == 0 || t.kind(i - 1) == SqlLexer.Kind.SEMICOLON)
                        && (t.is(i, "CREATE") || t.is(i, "ALTER") || t.is(i, "DROP") || t.is(i, "DO")
                                || t.is(i, "RENAME") || t.is(i, "IF") || t.is(i, "BEGIN"))) {
                    catalogChanged = true;
                    return true;
                }
            }
        }
        return false;
    }

    public SqlEffect classify(String sql) {
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

    public SqlDialect dialect() {
        return dialect;
    }

    /** SQL that makes the session forget the values statements left, as a fresh session has none; or null. */
    public String discardValues() {
        return switch (dialect) {
            case POSTGRES -> "DISCARD SEQUENCES";
            case MYSQL -> "SELECT LAST_INSERT_ID(0)";
            default -> null;
        };
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
    public boolean unresettable(String sql) {
        return sql != null && dialect == SqlDialect.POSTGRES && UNRESETTABLE.matcher(sql).find();
    }

    /**
     * Whether {@code sql}, already classified as session SQL, may change the search path: the
     * driver (pgjdbc) keeps the type names it looks up under it, which no session reset clears, so
     * they are put back when the connection returns. Any mention of the path, of {@code SCHEMA}
     * ({@code SET SCHEMA 'x'}), of {@code set_config} (its name may be a parameter) or of
     * {@code pg_settings}, literals and bodies included ({@code EXECUTE 'SET search_path …'}), and a
     * call of a function whose source does. A hook of its own, asked only of session SQL, as
     * {@link #unresettable}.
     */
    public boolean mayChangeSearchPath(String sql) {
        return sql != null && dialect == SqlDialect.POSTGRES && (SEARCH_PATH.matcher(sql).find() || callsSearchPathSetter(sql));
    }

    /** A call of a function whose source may change the search path ({@link SqlFunctions#addSearchPathSetters}). */
    private boolean callsSearchPathSetter(String sql) {
        SqlFunctions f = functions;
        SqlLexer t = SqlLexer.lex(sql, SqlDialect.POSTGRES, false);
        for (int i = 0; i < t.count(); i++) {
            SqlLexer.Kind k = t.kind(i);
            if ((k == SqlLexer.Kind.WORD || k == SqlLexer.Kind.QUOTED) && f.searchPathWord(t.name(i), k == SqlLexer.Kind.QUOTED)) {
                return true;
            }
        }
        return false;
    }

    static final Pattern SEARCH_PATH =
            Pattern.compile("(?i)(?<![a-z0-9_$])(search_path|schema|set_config|pg_settings)(?![a-z0-9_$])");

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
    public SqlEffect classifyBehindPooler(String sql) {
        return classifyText(sql, Behind.POOLER);
    }

    /**
     * Whether a statement of the text that ends or begins a transaction ({@code COMMIT},
     * {@code ROLLBACK}, {@code END}, {@code ABORT}, {@code BEGIN}, {@code START TRANSACTION},
     * {@code PREPARE TRANSACTION}, {@code AND CHAIN} or not) is followed by another statement of
     * the same text: what follows runs in a transaction the pool never saw begin. A text not read
     * every way is taken to do so. Not cached: asked only of a text whose effect changes the transaction.
     */
    public boolean transactionBoundaryThenMore(String sql) {
        SqlReading[] readings = SqlReading.all(sql, dialect);
        if (readings == null) {
            return true;
        }
        for (SqlReading r : readings) {
            SqlLexer t = SqlLexer.lex(sql, dialect, r);
            boolean boundary = false;
            for (int start = 0; start < t.count(); ) {
                int end = start;
                while (end < t.count() && t.kind(end) != SqlLexer.Kind.SEMICOLON) {
                    end++;
                }
                if (end > start) {
                    if (boundary) {
                        return true;
                    }
                    if (t.is(start, "CREATE") && SqlRules.contains(t, start, end, "BEGIN") || compound(t, start, dialect)) {
                        break; // a body's statements follow, which do not run now (classify reads them so too)
                    }
                    boundary = SqlRules.leading(t, start, end, dialect).tx != Tx.SAME;
                }
                start = end + 1;
            }
        }
        return false;
    }

    /** What stands between the pool and the sessions the SQL runs in. */
    private enum Behind {
        NOTHING,
        POOLER
    }

    private SqlEffect classifyText(String sql, Behind behind) {
        SqlDialect dialect = this.dialect;
        SqlFunctions functions = this.functions;
        // pgjdbc turns a placeholder into $1 before the server reads the text: $? becomes $$1,
        // which opens a dollar quote the text did not have. Such a text is not read as the server reads it.
        boolean placeholderDollar = dialect == SqlDialect.POSTGRES && behind == Behind.NOTHING
                && (sql.contains("$?") || sql.contains("?$"));
        SqlEffect effect = placeholderDollar ? SqlEffect.SESSION : null;
        SqlReading[] readings = SqlReading.all(sql, dialect);
        if (readings == null) { // too many versioned comment kinds to read every way
            readings = SqlReading.all("", dialect);
            effect = SqlEffect.SESSION_BEGIN;
        }
        for (SqlReading r : readings) {
            SqlLexer t = SqlLexer.lex(sql, dialect, r);
            SqlEffect one = classify(t, dialect, behind, functions);
            // MySQL Connector/J joins a rewritten batch's texts with ';': what one leaves open takes in the next
            if (t.unterminated() && behind == Behind.NOTHING && dialect == SqlDialect.MYSQL) {
                one = SqlEffect.of(true, one.tx, one.values);
            }
            if (effect == null) {
                effect = one;
            } else {
                Tx tx = effect.tx == one.tx ? effect.tx
                        : effect.tx == Tx.OPEN || one.tx == Tx.OPEN ? Tx.OPEN : Tx.SAME; // an end only if all agree
                effect = SqlEffect.of(effect.session || one.session, tx, SqlEffect.eitherValues(effect.values, one.values));
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
        boolean selected = false; // a SELECT of this text set what FOUND_ROWS() answers
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
                int v = stored ? 0 : SqlValues.of(t, start, end, dialect, functions)
                        | SqlAllowlist.catalogValues(t, start, end, dialect, functions);
                if (!first) {
                    v &= ~SqlEffect.READS_LAST; // the statement before it is this text's own
                }
                if (left) {
                    v &= ~SqlEffect.READS_KEPT; // an earlier statement of this text left what it reads
                }
                if (selected) {
                    v &= ~SqlEffect.READS_FOUND; // an earlier SELECT of this text set what it reads
                }
                left |= (v & SqlEffect.LEAVES) != 0;
                selected |= (v & SqlEffect.SETS_FOUND) != 0;
                values = SqlEffect.joinValues(values, v);
                if (!body && e.tx == Tx.ENDED) {
                    // like commit(): a value is not kept past the end of its transaction
                    values &= ~(SqlEffect.LEAVES | SqlEffect.GENERATED | SqlEffect.HANDED);
                }
                first = false;
                stored |= t.is(start, "CREATE") && SqlRules.contains(t, start, end, "BEGIN");
                if (!body && e.tx != Tx.SAME) {
                    tx = e.tx;
                }
                body |= t.is(start, "CREATE") && SqlRules.contains(t, start, end, "BEGIN") || compound(t, start, dialect);
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
        SqlEffect known = SqlRules.leading(t, s, e, dialect);
        if (!known.session && (SqlRules.touchesSession(t, s, e, behind == Behind.POOLER)
                || dialect == SqlDialect.MYSQL && SqlRules.takesSequenceValue(t, s, e))) {
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
}
