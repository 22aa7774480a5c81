package dev.loompool.jdbc.fuzz;

import dev.loompool.jdbc.fuzz.Step.Kind;
import dev.loompool.jdbc.internal.sql.FuzzTarget;
import dev.loompool.jdbc.internal.sql.FuzzTexts;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Pattern;

/**
 * Borrower A's sequences: JDBC calls (autocommit, commit and rollback, savepoints, read-only,
 * isolation, catalog and schema, the getters), SQL through every kind of statement (plain,
 * prepared and repeated, callable, batches, statements and result sets left open across steps
 * with a fetch size and a row limit), texts from {@link FuzzTexts} (the classifier fuzzer's,
 * session-changing ones too), DML on the run's own table, transaction control and session
 * settings by SQL, per-statement values, user functions and procedures.
 */
final class Steps {

    private static final Pattern FUZZ_TABLE = Pattern.compile("\\b" + FuzzTarget.TABLE + "\\b");
    private static final Pattern MYSQL_USE = Pattern.compile("(?i)\\bUSE\\s+[`\\w{]");
    private static final Pattern MYSQL_RELEASE = Pattern.compile("(?i)\\b(COMMIT|ROLLBACK)\\b[\\w\\s]*\\bRELEASE\\b");
    private static final Pattern LOCK_NAME = Pattern.compile("\\bfz_lock");
    private static final Pattern PG_ENDS_SESSION = Pattern.compile("(?i)DateStyle|client_encoding");

    /** Step kinds and their weights. */
    private static final Object[][] KINDS = {
        {Kind.EXECUTE, 30}, {Kind.PREPARED, 8}, {Kind.CALL, 4}, {Kind.BATCH, 3}, {Kind.PREPARED_BATCH, 2},
        {Kind.GENERATED_KEYS, 2}, {Kind.OPEN, 6}, {Kind.OPEN_PREPARED, 3}, {Kind.NEXT, 4}, {Kind.CLOSE_RESULT, 2},
        {Kind.CLOSE_STATEMENT, 3}, {Kind.SET_AUTOCOMMIT, 8}, {Kind.COMMIT, 5}, {Kind.ROLLBACK, 4}, {Kind.SAVEPOINT, 3},
        {Kind.RELEASE_SAVEPOINT, 2}, {Kind.ROLLBACK_TO_SAVEPOINT, 2}, {Kind.SET_READ_ONLY, 3}, {Kind.SET_ISOLATION, 3},
        {Kind.SET_CATALOG, 2}, {Kind.SET_SCHEMA, 2}, {Kind.GETTERS, 4}, {Kind.WARNINGS, 2}, {Kind.PIN, 1}, {Kind.UNPIN, 1},
        {Kind.TYPED, 3},
    };

    private final SeqTarget target;
    private final FuzzTexts texts;
    private final boolean known;

    Steps(SeqTarget target, boolean known) {
        this.target = target;
        this.texts = new FuzzTexts(target.dialect);
        this.known = known;
    }

    Sequence generate(SplittableRandom r) {
        PoolDefaults defaults = PoolDefaults.pick(r, target);
        List<Step> steps = new ArrayList<>();
        for (int n = 3 + r.nextInt(16); steps.size() < n;) {
            Step s = step(r);
            if (s != null && (known || s.known() == null)) {
                steps.add(s);
            }
        }
        return new Sequence(defaults, steps);
    }

    private Step step(SplittableRandom r) {
        Kind kind = kind(r);
        boolean pg = target.postgres();
        return switch (kind) {
            case SET_AUTOCOMMIT, SET_READ_ONLY -> new Step(kind, null, r.nextInt(2), 0);
            case SAVEPOINT -> new Step(kind, null, r.nextInt(3), 0);
            case RELEASE_SAVEPOINT, ROLLBACK_TO_SAVEPOINT, CLOSE_RESULT, CLOSE_STATEMENT -> new Step(kind, null, r.nextInt(3), 0);
            case NEXT -> new Step(kind, null, r.nextInt(3), 1 + r.nextInt(3));
            case SET_ISOLATION -> new Step(kind, null, new int[] {Connection.TRANSACTION_READ_UNCOMMITTED,
                Connection.TRANSACTION_READ_COMMITTED, Connection.TRANSACTION_REPEATABLE_READ,
                Connection.TRANSACTION_SERIALIZABLE}[r.nextInt(4)], 0);
            case SET_CATALOG -> new Step(kind, pick(r, target.catalogs()), 0, 0);
            case SET_SCHEMA -> new Step(kind, pick(r, target.schemas()), 0, 0);
            case COMMIT, ROLLBACK, GETTERS, WARNINGS, PIN, UNPIN -> Step.call(kind);
            case EXECUTE -> tagged(new Step(kind, sql(r), 0, 0));
            case OPEN, OPEN_PREPARED -> tagged(new Step(kind, r.nextInt(3) == 0 ? sql(r) : query(r), r.nextInt(3),
                    new int[] {0, 0, 1, 3}[r.nextInt(4)]));
            case PREPARED -> tagged(new Step(kind, r.nextInt(3) == 0 ? sql(r) : pick(r, List.of(
                    "INSERT INTO {t} VALUES (?i, ?s)", "SELECT id, v FROM {t} WHERE id >= ?i ORDER BY id, v",
                    "UPDATE {t} SET v = ?s WHERE id = ?i", "DELETE FROM {t} WHERE id = ?i", "SELECT count(*) FROM {t} WHERE id < ?i",
                    pg ? "SELECT {p}fn(?i)" : "SELECT {p}fn(?i)")), r.nextInt(100), 1 + r.nextInt(7)));
            case CALL -> call(r);
            case BATCH -> {
                List<String> batch = new ArrayList<>();
                for (int n = 1 + r.nextInt(4); n > 0; n--) {
                    batch.add(r.nextInt(4) == 0 ? sql(r) : dml(r));
                }
                yield tagged(new Step(kind, String.join(Step.BATCH_SEPARATOR, batch), 0, 0));
            }
            case PREPARED_BATCH -> new Step(kind, "INSERT INTO {t} VALUES (?i, ?s)", r.nextInt(100), 1 + r.nextInt(4));
            case GENERATED_KEYS -> new Step(kind, "INSERT INTO {t} VALUES (" + id(r) + ", 'g')", 0, 0);
            case TYPED -> pg ? new Step(kind, "SELECT pg_typeof(?)::text", r.nextInt(3), 0).known(Known.TYPE_CACHE_ACROSS_SEARCH_PATH)
                    : null;
        };
    }

    private static Kind kind(SplittableRandom r) {
        int total = 0;
        for (Object[] k : KINDS) {
            total += (Integer) k[1];
        }
        int x = r.nextInt(total);
        for (Object[] k : KINDS) {
            x -= (Integer) k[1];
            if (x < 0) {
                return (Kind) k[0];
            }
        }
        throw new AssertionError();
    }

    private Step call(SplittableRandom r) {
        boolean pg = target.postgres();
        if (r.nextInt(3) == 0) {
            return tagged(new Step(Kind.CALL, sql(r), 0, 0));
        }
        List<String> templates = pg
                ? List.of("{? = call {p}fn(?)}", "{call {p}ins(?, ?)}", "{? = call {p}setfn(?)}", "{? = call upper(?)}")
                : List.of("{? = call {p}fn(?)}", "{call {p}proc(?, ?)}", "{call {p}ins(?, ?)}", "{call {p}setproc(?)}");
        return new Step(Kind.CALL, pick(r, templates), id(r), 0);
    }

    /** Marks a step whose SQL is the trigger of a known finding on this target. */
    private Step tagged(Step s) {
        for (String sql : s.kind() == Kind.BATCH ? s.batch() : List.of(s.sql())) {
            Known k = knownOf(s.kind(), sql);
            if (k != null) {
                return s.known(k);
            }
        }
        return s;
    }

    private Known knownOf(Kind kind, String sql) {
        if (target == SeqTarget.MYSQL_CJ && MYSQL_USE.matcher(sql).find()) {
            return Known.USE_NOT_UNDONE;
        }
        if (target == SeqTarget.MYSQL_CJ && kind == Kind.CALL && sql.contains("/*")) {
            return Known.CALL_OF_VERSIONED_COMMENT;
        }
        if (sql.contains("{p}currval()")) {
            return Known.CURRVAL_THROUGH_FUNCTION;
        }
        if (target.postgres() ? PG_ENDS_SESSION.matcher(sql).find() : MYSQL_RELEASE.matcher(sql).find()) {
            return Known.SESSION_ENDED;
        }
        return null;
    }

    /** SQL for a statement: a FuzzTexts text or payload, DML, transaction control, or session SQL. */
    private String sql(SplittableRandom r) {
        int x = r.nextInt(100);
        if (x < 22) {
            return own(String.join("", texts.generate(r)));
        } else if (x < 35) {
            return own(texts.payload(r));
        } else if (x < 65) {
            return dml(r);
        } else if (x < 82) {
            return transaction(r);
        }
        return session(r);
    }

    /**
     * A FuzzTexts text on this run's own table, and with this target's own lock names and
     * numbers (SeqTarget.locks): side by side, runs must not take each other's locks.
     */
    private String own(String text) {
        String t = FUZZ_TABLE.matcher(text).replaceAll("{t}");
        return target.postgres() ? t.replace("7744", "3883") : LOCK_NAME.matcher(t).replaceAll("{p}fz_lock");
    }

    private String query(SplittableRandom r) {
        return pick(r, List.of("SELECT id, v FROM {t} ORDER BY id, v", "SELECT count(*) FROM {t}",
                target.postgres() ? "SELECT g FROM generate_series(1, 5) AS g" : "SELECT seq FROM seq_1_to_5",
                "SELECT id FROM {t} WHERE id > " + id(r) + " ORDER BY id"));
    }

    private String dml(SplittableRandom r) {
        int id = id(r);
        boolean pg = target.postgres();
        return switch (r.nextInt(8)) {
            case 0, 1 -> "INSERT INTO {t} VALUES (" + id + ", 'a" + id + "')";
            case 2 -> "INSERT INTO {t} VALUES (" + id + ", 'b'), (" + (id + 1) + ", 'c')";
            case 3 -> "UPDATE {t} SET v = " + (pg ? "v || 'u'" : "CONCAT(v, 'u')") + " WHERE id % 3 = " + r.nextInt(3);
            case 4 -> "DELETE FROM {t} WHERE id = " + id;
            case 5 -> "SELECT id, v FROM {t} ORDER BY id, v";
            case 6 -> "INSERT INTO {t} VALUES (" + id + ", 'r') RETURNING id";
            default -> "SELECT count(*) FROM {t}";
        };
    }

    private String transaction(SplittableRandom r) {
        int id = id(r);
        List<String> common = List.of("BEGIN", "START TRANSACTION", "COMMIT", "ROLLBACK", "SAVEPOINT q",
                "ROLLBACK TO SAVEPOINT q", "RELEASE SAVEPOINT q", "COMMIT AND CHAIN", "START TRANSACTION READ ONLY",
                "SET TRANSACTION READ ONLY", "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
                "START TRANSACTION; INSERT INTO {t} VALUES (" + id + ", 't')", "INSERT INTO {t} VALUES (" + id + ", 'c'); COMMIT");
        List<String> own = target.postgres()
                ? List.of("END", "ABORT", "SET LOCAL statement_timeout = 1234", "LOCK TABLE {t} IN SHARE MODE")
                : List.of("SET autocommit = 0", "SET autocommit = 1", "SET @@autocommit = OFF", "XA START '{t}'",
                        "COMMIT RELEASE", "ROLLBACK AND NO CHAIN RELEASE");
        return r.nextInt(3) == 0 ? pick(r, own) : pick(r, common);
    }

    private String session(SplittableRandom r) {
        int id = id(r);
        List<String> pg = List.of("SET search_path TO {p}s1, public", "SET search_path TO {p}s2",
                "SELECT set_config('search_path', '{p}s2, public', false)",
                "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE",
                "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY", "SET default_transaction_read_only = on",
                "SET application_name = 'wt38d'", "SET extra_float_digits = 1", "RESET ALL", "DISCARD ALL",
                "SET TimeZone = 'Asia/Tokyo'", "SET standard_conforming_strings = off", "CREATE TEMP TABLE {p}tmp (id int)",
                "PREPARE fz_p AS SELECT 1", "DEALLOCATE ALL", "LISTEN fz_chan", "SELECT pg_advisory_lock(3883001)",
                "SELECT nextval('{p}seq')", "SELECT currval('{p}seq')", "SELECT lastval()", "SELECT setval('{p}seq', " + id + ")",
                "SELECT {p}fn(" + id + ")", "SELECT {p}setfn('s" + id + "')", "SELECT {p}ins('{t}', " + id + ")",
                "SET DateStyle = 'German'", "SET client_encoding = 'LATIN1'", "SELECT {p}currval()");
        List<String> my = List.of("USE {p}other", "USE test", "SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE",
                "SET SESSION TRANSACTION READ ONLY", "SET sql_mode = 'ANSI_QUOTES'", "SET NAMES latin1",
                "SET @fz_a = " + id, "CREATE TEMPORARY TABLE {t} (id int, v varchar(200))", "SELECT GET_LOCK('{p}fz_lock', 0)",
                "SET profiling = 1", "SET time_zone = '+03:00'", "SELECT NEXT VALUE FOR {p}seq", "SELECT PREVIOUS VALUE FOR {p}seq",
                "SELECT LAST_INSERT_ID()", "SELECT LAST_INSERT_ID(" + id + ")", "SELECT ROW_COUNT()", "SELECT FOUND_ROWS()",
                "SHOW WARNINGS", "SELECT @@warning_count", "SELECT {p}fn(" + id + ")", "CALL {p}setproc(" + id + ")",
                "CALL {p}ins('{t}', " + id + ")", "PREPARE fz_p FROM 'SELECT 1'", "SELECT 1 FROM {t} LIMIT 1 INTO @fz_b");
        return pick(r, target.postgres() ? pg : my);
    }

    private static int id(SplittableRandom r) {
        return r.nextInt(100);
    }

    private static <T> T pick(SplittableRandom r, List<T> from) {
        return from.get(r.nextInt(from.size()));
    }
}
