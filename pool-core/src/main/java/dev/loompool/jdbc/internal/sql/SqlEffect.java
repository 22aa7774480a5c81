package dev.loompool.jdbc.internal.sql;

/**
 * What a SQL text does to the pins of the handle that runs it, all its statements taken
 * together: whether it leaves state on the session, how it leaves the transaction, and which
 * per-statement values it reads or leaves (DESIGN.md §4, "Per-statement values").
 *
 * <p>Interned: one instance per combination, made up front, so that a classification is compared
 * by identity and costs no allocation; {@link SqlClassifier#classify} caches it by the SQL string.
 */
public final class SqlEffect {

    /** How a text leaves the transaction. */
    public enum Tx {
        SAME,
        OPEN,
        ENDED
    }

    /**
     * Reads a value of the statement just before it, which every statement overwrites:
     * {@code FOUND_ROWS()}, {@code ROW_COUNT()}, {@code SHOW WARNINGS}, {@code GET DIAGNOSTICS},
     * {@code @@warning_count}.
     */
    public static final int READS_LAST = 1;
    /**
     * Reads a value the session keeps from the last statement that set it: {@code lastval()},
     * {@code currval(…)}, {@code LAST_INSERT_ID()}, {@code PREVIOUS VALUE FOR}, {@code @@identity}.
     */
    public static final int READS_KEPT = 2;
    /**
     * Leaves a value the next statement is likely to read: an {@code INSERT} without
     * {@code RETURNING}, {@code nextval}, {@code LAST_INSERT_ID(expr)}, {@code SQL_CALC_FOUND_ROWS}.
     */
    public static final int LEAVES = 4;
    /** Reads the connection's identity: {@code pg_backend_pid()}, {@code CONNECTION_ID()}. */
    public static final int IDENTITY = 8;
    /**
     * MySQL and MariaDB {@code FOUND_ROWS()}: reads the count of the session's last SELECT, which
     * statements of other kinds in between leave as it was.
     */
    public static final int READS_FOUND = 16;
    /** MySQL and MariaDB: a SELECT, which sets what {@code FOUND_ROWS()} answers. */
    public static final int SETS_FOUND = 32;
    /**
     * With {@link #LEAVES}: the one value it leaves is the generated key of its {@code INSERT} (no
     * {@code nextval}, no {@code LAST_INSERT_ID(expr)} in its text, one such statement in it), which
     * the statement can hand to its caller ({@link #keysAsked}).
     */
    public static final int GENERATED = 64;
    /**
     * With {@link #GENERATED}: the caller gets that key from the statement itself
     * ({@code RETURNING}, or the generated keys asked for at prepare or execute), so the value the
     * session keeps does not hold the connection for the next statement (StatementValues).
     */
    public static final int HANDED = 128;
    private static final String[] VALUE_NAMES = {"READS_LAST", "READS_KEPT", "LEAVES", "IDENTITY", "READS_FOUND",
        "SETS_FOUND", "GENERATED", "HANDED"};
    private static final int VALUE_COMBINATIONS = 256;

    private static final SqlEffect[] ALL = new SqlEffect[2 * 3 * VALUE_COMBINATIONS];

    static {
        for (boolean session : new boolean[] {false, true}) {
            for (Tx tx : Tx.values()) {
                for (int v = 0; v < VALUE_COMBINATIONS; v++) {
                    ALL[index(session, tx, v)] = new SqlEffect(session, tx, v);
                }
            }
        }
    }

    /** Nothing a later statement depends on. */
    public static final SqlEffect NONE = of(false, Tx.SAME);
    /** Leaves a transaction open: {@code BEGIN}, {@code START TRANSACTION}, {@code COMMIT AND CHAIN}. */
    static final SqlEffect BEGIN = of(false, Tx.OPEN);
    /** Ends one: {@code COMMIT}, {@code ROLLBACK} (not {@code ROLLBACK TO}), {@code END}, {@code ABORT}. */
    static final SqlEffect END = of(false, Tx.ENDED);
    /** Leaves state on the session, which must be reset before anybody else gets the connection. */
    static final SqlEffect SESSION = of(true, Tx.SAME);
    /**
     * Session state and a transaction that may be open: MySQL {@code SET autocommit=0}, and SQL
     * whose effect cannot be known ({@code DO}, {@code CALL}, {@code XA}, {@code BEGIN NOT ATOMIC}).
     */
    static final SqlEffect SESSION_BEGIN = of(true, Tx.OPEN);
    /** MySQL {@code SET autocommit=1}: commits, and changes the session. */
    static final SqlEffect SESSION_END = of(true, Tx.ENDED);

    public final boolean session;
    public final Tx tx;
    /** {@link #READS_LAST}, {@link #READS_KEPT}, {@link #LEAVES}, {@link #IDENTITY}: 0 for most SQL. */
    public final int values;

    private SqlEffect(boolean session, Tx tx, int values) {
        this.session = session;
        this.tx = tx;
        this.values = values;
    }

    private static int index(boolean session, Tx tx, int values) {
        return ((session ? 3 : 0) + tx.ordinal()) * VALUE_COMBINATIONS + values;
    }

    public static SqlEffect of(boolean session, Tx tx) {
        return ALL[index(session, tx, 0)];
    }

    public static SqlEffect of(boolean session, Tx tx, int values) {
        return ALL[index(session, tx, values)];
    }

    /** The same with {@code more} value flags. */
    SqlEffect with(int more) {
        return ALL[index(session, tx, values | more)];
    }

    /**
     * The same, run with its generated keys asked for ({@code prepareStatement(sql,
     * RETURN_GENERATED_KEYS)}, {@code executeUpdate(sql, columnNames)}): an {@code INSERT}'s key is
     * then handed to the caller. An allocation-free array load.
     */
    public SqlEffect keysAsked() {
        return (values & GENERATED) != 0 ? ALL[index(session, tx, values | HANDED)] : this;
    }

    /**
     * The value flags of two statements of one text: a key is {@link #GENERATED} (or
     * {@link #HANDED}) only if one of them alone leaves a value and that one's value is.
     */
    static int joinValues(int a, int b) {
        int v = a | b;
        return (a & LEAVES) != 0 && (b & LEAVES) != 0 ? v & ~(GENERATED | HANDED) : v;
    }

    /**
     * The value flags of two readings of one text (MySQL's versioned comments), one of which the
     * server runs: where both leave a value, a key is {@link #GENERATED} (or {@link #HANDED}) only if it is in both.
     */
    static int eitherValues(int a, int b) {
        int v = a | b;
        return (a & LEAVES) != 0 && (b & LEAVES) != 0 ? v & ~((GENERATED | HANDED) & ~(a & b)) : v;
    }

    /** Whether it reads a value an earlier statement left. */
    public boolean readsPrevious() {
        return (values & (READS_LAST | READS_KEPT | READS_FOUND)) != 0;
    }

    /** The base name ({@code NONE}, {@code SESSION_BEGIN}…), then {@code +LEAVES} and the like. */
    @Override
    public String toString() {
        String base = (session ? "SESSION" : "") + switch (tx) {
            case OPEN -> session ? "_BEGIN" : "BEGIN";
            case ENDED -> session ? "_END" : "END";
            default -> session ? "" : "NONE";
        };
        StringBuilder s = new StringBuilder(base);
        for (int i = 0; i < VALUE_NAMES.length; i++) {
            if ((values & (1 << i)) != 0) {
                s.append('+').append(VALUE_NAMES[i]);
            }
        }
        return s.toString();
    }

    /** The effect {@link #toString()} names, for tests: {@code SESSION+LEAVES}. */
    static SqlEffect named(String name) {
        String[] parts = name.trim().split("\\+");
        for (SqlEffect e : ALL) {
            if (e.values == 0 && e.toString().equals(parts[0])) {
                int v = 0;
                for (int p = 1; p < parts.length; p++) {
                    int bit = java.util.Arrays.asList(VALUE_NAMES).indexOf(parts[p]);
                    if (bit < 0) {
                        throw new IllegalArgumentException(name);
                    }
                    v |= 1 << bit;
                }
                return e.with(v);
            }
        }
        throw new IllegalArgumentException(name);
    }
}
