package dev.loompool.jdbc.internal.sql;

import java.util.HashMap;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;

/**
 * Which functions a statement may call and still let its connection go (DESIGN.md §4, "Classifying
 * SQL: an allowlist"). A name this table does not know is not neutral.
 *
 * <p>PostgreSQL: the server's word. {@code pg_proc.provolatile} for every function of every
 * schema, read once per pool and again after DDL through the pool and every
 * {@link #REFRESH_NANOS} (see {@link SqlClassifier#refreshDue}): immutable and stable functions
 * are neutral; a name with any volatile overload is not, except the reviewed builtins of
 * {@link #HARMLESS_POSTGRES}, and only while every volatile overload of that name is the builtin.
 * Also from the catalog: the relations whose rules (views among them) call a volatile function, and
 * operators whose function is volatile; a text that names one is not neutral.
 *
 * <p>MySQL and MariaDB: the builtins, written here, except those that touch the session. A name
 * that is not a builtin is a stored function or a loadable one (builtins cannot be shadowed
 * unqualified), so it is not neutral; neither is a qualified or quoted name.
 */
public final class SqlFunctions {

    /** How often the PostgreSQL table is read again when nothing through the pool changed it. */
    static final long REFRESH_NANOS = 60_000_000_000L;

    /**
     * Volatile PostgreSQL builtins that leave nothing on the session another borrower could see,
     * each with its reason. Reviewed against pg_proc of PostgreSQL 15.
     */
    private static final Set<String> HARMLESS_POSTGRES = Set.of(
            "random", // a value from the session's generator: unseeded, it says nothing (setseed is not here)
            "clock_timestamp", "timeofday", // read the clock
            "gen_random_uuid", // a fresh value, nothing kept
            "pg_sleep", "pg_sleep_for", "pg_sleep_until", // wait
            // a sequence's value for the session is a per-statement value: the STATEMENT_VALUE pin keeps it
            // for the statement after, and a read of it on another binding is refused (StatementValues)
            "nextval", "setval", "currval", "lastval",
            "pg_notify", // queued for the commit, nothing left on the session
            // uuid-ossp's and pgcrypto's random values: exempt only as those extensions' own functions
            "uuid_generate_v1", "uuid_generate_v1mc", "uuid_generate_v4", "gen_salt", "gen_random_bytes",
            // read the server's state, which changes under them (hence volatile), and leave nothing
            "pg_is_in_recovery", "pg_last_xact_replay_timestamp", "pg_current_wal_lsn", "pg_last_wal_receive_lsn",
            "pg_last_wal_replay_lsn", "pg_database_size", "pg_relation_size", "pg_table_size", "pg_indexes_size",
            "pg_total_relation_size", "pg_blocking_pids",
            // released at the end of the transaction, which pins while it is open
            "pg_advisory_xact_lock", "pg_advisory_xact_lock_shared",
            "pg_try_advisory_xact_lock", "pg_try_advisory_xact_lock_shared");

    /**
     * Stable builtins that run a query on a relation named in a string: the relation's rules are
     * not seen in the text, so they pin.
     */
    private static final Set<String> RUN_QUERIES_POSTGRES = Set.of("table_to_xml", "table_to_xmlschema",
            "table_to_xml_and_xmlschema", "schema_to_xml", "schema_to_xmlschema", "schema_to_xml_and_xmlschema",
            "database_to_xml", "database_to_xmlschema", "database_to_xml_and_xmlschema");

    /**
     * Words PostgreSQL reads as syntax before a parenthesis, not as a call of a catalog function:
     * the expression keywords, and type names whose modifier is in parentheses.
     */
    private static final Set<String> SYNTAX_POSTGRES = Set.of(
            "all", "and", "any", "array", "as", "between", "by", "case", "cast", "coalesce", "collation", "conflict",
            "cube", "distinct", "else", "except", "exists", "extract", "filter", "from", "greatest", "group", "grouping",
            "groups", "having", "ilike", "in", "intersect", "is", "join", "lateral", "least", "like", "limit",
            "materialized", "not", "nullif", "offset", "on", "only", "or", "order", "over", "overlay", "partition",
            "position", "range", "recursive", "returning", "rollup", "row", "rows", "select", "set", "sets", "similar",
            "some", "substring", "table", "then", "treat", "trim", "union", "using", "values", "when", "where",
            "window", "with", "within", "xmlattributes", "xmlconcat", "xmlelement", "xmlexists", "xmlforest",
            "xmlparse", "xmlpi", "xmlroot", "xmlserialize", "normalize", "insert", "current_time",
            "current_timestamp", "localtime", "localtimestamp",
            "bit", "char", "character", "dec", "decimal", "float", "interval", "nchar", "numeric", "time",
            "timestamp", "varchar", "varying");

    /**
     * MySQL and MariaDB builtins and syntax words that may stand before a parenthesis and touch
     * nothing of the session. Not here, on purpose: {@code GET_LOCK}, {@code RELEASE_LOCK},
     * {@code RELEASE_ALL_LOCKS} (named locks are the session's), {@code SETVAL}, and
     * {@code LAST_INSERT_ID} (neutral only without an argument: see {@link #neutralCall}).
     * {@code NEXTVAL} and {@code LASTVAL} are, for the same reason as PostgreSQL's.
     */
    private static final Set<String> NEUTRAL_MYSQL = Set.of((""
            + "abs acos adddate addtime aes_decrypt aes_encrypt against all and any any_value ascii asin as atan atan2 avg"
            + " benchmark bin bin_to_uuid binary bit_and bit_count bit_length bit_or bit_xor by case cast ceil ceiling"
            + " char char_length character_length charset chr coalesce coercibility collation column_add column_check"
            + " column_create column_delete column_exists column_get column_json column_list columns compress concat"
            + " concat_ws connection_id conv convert convert_tz cos cot count crc32 crc32c cume_dist curdate"
            + " current_date current_role current_time current_timestamp current_user curtime database date date_add"
            + " date_format date_sub datediff day dayname dayofmonth dayofweek dayofyear decode default degrees"
            + " dense_rank distinct div elt encode exists exp export_set extract extractvalue field find_in_set"
            + " first_value floor format format_bytes format_pico_time found_rows from from_base64 from_days"
            + " from_unixtime greatest group_concat grouping having hex hour if ifnull in index inet6_aton inet6_ntoa"
            + " inet_aton inet_ntoa insert instr interval into is is_free_lock is_ipv4 is_ipv4_compat is_ipv4_mapped"
            + " is_ipv6 is_used_lock is_uuid isnull join json_array json_array_append json_array_insert json_arrayagg"
            + " json_compact json_contains json_contains_path json_depth json_detailed json_equals json_exists"
            + " json_extract json_insert json_keys json_length json_loose json_merge json_merge_patch"
            + " json_merge_preserve json_normalize json_object json_objectagg json_overlaps json_pretty json_query"
            + " json_quote json_remove json_replace json_schema_valid json_search json_set json_table json_type"
            + " json_unquote json_valid json_value key lag last_day last_value lastval lcase lead least left length"
            + " lengthb like limit ln localtime localtimestamp locate log log10 log2 lower lpad ltrim make_set"
            + " makedate maketime match max md5 median microsecond mid min minute mod month monthname natural_sort_key"
            + " nextval not now nth_value ntile nullif nvl nvl2 oct octet_length on or ord over partition percent_rank"
            + " percentile_cont percentile_disc period_add period_diff pi position pow power ps_current_thread_id ps_thread_id"
            + " quarter quote radians"
            + " rand random_bytes rank regexp regexp_instr regexp_like regexp_replace regexp_substr repeat replace"
            + " reverse right rlike round row row_count row_number rpad rtrim schema sec_to_time second select"
            + " session_user sformat sha sha1 sha2 sign sin sleep soundex space sqrt std stddev stddev_pop stddev_samp"
            + " str_to_date strcmp subdate substr substring substring_index subtime sum sys_guid sysdate system_user"
            + " tan then time time_format time_to_sec timediff timestamp timestampadd timestampdiff to_base64 to_char"
            + " to_days to_seconds trim truncate ucase uncompress uncompressed_length unhex unix_timestamp upper user"
            + " using utc_date utc_time utc_timestamp uuid uuid_short uuid_to_bin value values var_pop var_samp"
            + " variance version week weekday weekofyear weight_string when where window with xor year yearweek"
            + " between else except group intersect some union within listagg"
            // type names after CONVERT(x, …), whose parenthesis is a length, not a call
            + " decimal dec numeric signed unsigned double float datetime nchar varchar")
            .split(" "));

    /** Of those, the syntax words, which a space may part from their parenthesis. */
    private static final Set<String> SYNTAX_MYSQL = Set.of((""
            + "against all and any as between by columns distinct else except exists from group having in index intersect"
            + " into is join key like match not on or over partition regexp rlike row select some then union using values"
            + " when where window with within xor").split(" "));

    /** The SQL standard's functions and syntax words, for a database the pool knows nothing more of. */
    private static final Set<String> NEUTRAL_STANDARD = Set.of((""
            + "abs all and any as avg between cast ceil ceiling char_length character_length coalesce count"
            + " cume_dist current_date current_time current_timestamp dense_rank exists exp extract first_value"
            + " floor from in lag last_value lead length ln lower max min mod not nth_value ntile nullif octet_length"
            + " on or over percent_rank position power rank row row_number select some sqrt substring sum trim upper"
            + " using values when where with"
            // values the per-statement rule keeps with their statement, and identity reads, which pin
            + " nextval currval lastval setval last_insert_id found_rows row_count pg_backend_pid connection_id")
            .split(" "));

    private final SqlDialect dialect;
    /** PostgreSQL: the reviewed builtins' exemption holds only while this says it is the builtin. */
    private final Map<String, Volatility> byName;
    /**
     * PostgreSQL: names that change the session without a parenthesis: relations whose rules call a
     * volatile function, and volatile one-argument functions outside pg_catalog ({@code t.f} calls
     * {@code f(t)}).
     */
    private final Set<String> volatileWords;
    /**
     * PostgreSQL: relations whose definition, constraints, policies or defaults read a value the
     * session keeps ({@code lastval}, {@code currval}): a statement naming one reads it, as
     * {@link SqlEffect#READS_KEPT}.
     */
    private final Set<String> keptValueWords;
    /** PostgreSQL: operators whose function is volatile. */
    private final Set<String> volatileOperators;
    /**
     * PostgreSQL: functions whose source may change the search path ({@code set_config},
     * {@code SET search_path}), or calls one: after a call, the driver's type names are put back
     * ({@link SqlClassifier#mayChangeSearchPath}). Filled by {@link #addSearchPathSetters} before
     * the table is used.
     */
    private final Set<String> searchPathWords;
    /**
     * Tables an {@code INSERT} into leaves no generated key in: every table of that name, in any
     * schema, has no column a sequence, an identity or {@code AUTO_INCREMENT} fills, no trigger and
     * no rule (names folded to lower case, so that a quoted and an unquoted name meet, and a name
     * any of them leaves a key under is not here). Empty until the catalog is read: every INSERT
     * then keeps its value. Filled by {@link #addQuietTables} before the table is used.
     */
    private final Set<String> quietTables = new java.util.HashSet<>();

    public enum Volatility {
        NEUTRAL,
        /** Volatile, but every volatile overload is in pg_catalog. */
        BUILTIN_VOLATILE,
        VOLATILE;

        public static Volatility of(boolean anyVolatile, boolean volatileOutsideCatalog) {
            return !anyVolatile ? NEUTRAL : volatileOutsideCatalog ? VOLATILE : BUILTIN_VOLATILE;
        }
    }

    private SqlFunctions(SqlDialect dialect, Map<String, Volatility> byName, Set<String> volatileWords,
            Set<String> keptValueWords, Set<String> volatileOperators) {
        this.dialect = dialect;
        this.byName = byName;
        this.volatileWords = volatileWords;
        this.keptValueWords = keptValueWords;
        this.volatileOperators = volatileOperators;
        this.searchPathWords = dialect == SqlDialect.POSTGRES ? new java.util.HashSet<>() : Set.of();
    }

    /**
     * What is known without asking the server: MySQL's builtins, the standard's, and for PostgreSQL
     * nothing yet (every call then pins).
     */
    public static SqlFunctions known(SqlDialect dialect) {
        return new SqlFunctions(dialect, Map.of(), Set.of(), Set.of(), Set.of());
    }

    /**
     * A PostgreSQL table from rows of the catalog's answer (name, any overload volatile, any volatile
     * overload outside pg_catalog), for tests that have no server.
     */
    public static SqlFunctions postgres(Iterable<String[]> rows, Set<String> volatileWords, Set<String> volatileOperators) {
        Map<String, Volatility> byName = new HashMap<>();
        for (String[] r : rows) {
            byName.put(r[0], Volatility.of(r[1].equals("t"), r[2].equals("t")));
        }
        return postgres(byName, volatileWords, Set.of(), volatileOperators);
    }

    /**
     * Adds to {@code words} the names whose SQL {@code classifier} (using the table that holds
     * {@code words}) finds not neutral, and those whose SQL names one of them, until none is added:
     * a worklist, each definition classified again only when a name it holds was added.
     */
    public static void addUnneutral(Map<String, java.util.List<String>> sqlByName, Set<String> words, SqlClassifier classifier,
            java.util.function.Predicate<SqlEffect> unneutral) {
        java.util.ArrayDeque<String> added = new java.util.ArrayDeque<>();
        check(sqlByName.keySet(), sqlByName, words, classifier, unneutral, added);
        while (!added.isEmpty()) {
            String name = SqlLexer.foldAscii(added.poll());
            java.util.List<String> holders = new java.util.ArrayList<>();
            for (Map.Entry<String, java.util.List<String>> e : sqlByName.entrySet()) {
                if (!words.contains(e.getKey()) && e.getValue().stream().anyMatch(sql -> SqlLexer.foldAscii(sql).contains(name))) {
                    holders.add(e.getKey());
                }
            }
            check(holders, sqlByName, words, classifier, unneutral, added);
        }
    }

    /**
     * PostgreSQL: adds to {@code kept} the functions whose source ({@code sourceByName}: SQL,
     * PL/pgSQL, any body kept as text) reads a value the session keeps ({@code currval},
     * {@code lastval}) before a statement of its own left one, and those whose source calls such a
     * function, until none is added: calling one is then read as a direct {@code currval}. A body is
     * classified as SQL (PL/pgSQL's statements end with {@code ;} too), and so is the text of every
     * string literal in it, once more for a literal in a literal: the SQL an {@code EXECUTE} runs
     * ({@code EXECUTE 'SELECT currval(''s'')'}). SQL assembled from pieces at run time is not seen.
     */
    public static void addKeptReaders(Map<String, java.util.List<String>> sourceByName, Set<String> kept,
            SqlClassifier classifier) {
        Map<String, java.util.List<String>> texts = new HashMap<>();
        sourceByName.forEach((name, sources) -> {
            java.util.List<String> all = new java.util.ArrayList<>();
            for (String source : sources) {
                withLiterals(source, all, 3);
            }
            texts.put(name, all);
        });
        addUnneutral(texts, kept, classifier, e -> (e.values & SqlEffect.READS_KEPT) != 0);
    }

    /** {@code text}, then what each string literal in it holds, to {@code depth} levels. */
    private static void withLiterals(String text, java.util.List<String> into, int depth) {
        into.add(text);
        if (depth == 0 || text.indexOf('\'') < 0 && text.indexOf('$') < 0) {
            return;
        }
        SqlLexer t = SqlLexer.lex(text, SqlDialect.POSTGRES, false);
        for (int i = 0; i < t.count(); i++) {
            if (t.kind(i) == SqlLexer.Kind.STRING) {
                String s = t.text(i);
                String inner;
                if (s.startsWith("'")) {
                    inner = s.substring(1, Math.max(1, s.length() - 1)).replace("''", "'");
                } else { // $tag$ … $tag$
                    int open = s.indexOf('$', 1) + 1;
                    inner = s.substring(open, Math.max(open, s.length() - open));
                }
                if (!inner.isBlank()) {
                    withLiterals(inner, into, depth - 1);
                }
            }
        }
    }

    private static void check(Iterable<String> names, Map<String, java.util.List<String>> sqlByName, Set<String> words,
            SqlClassifier classifier, java.util.function.Predicate<SqlEffect> unneutral, java.util.ArrayDeque<String> added) {
        for (String name : names) {
            if (!words.contains(name)) {
                for (String sql : sqlByName.get(name)) {
                    if (unneutral.test(classifier.classifyText(sql)) && words.add(name)) {
                        added.add(name);
                        break;
                    }
                }
            }
        }
    }

    /**
     * MySQL's and MariaDB's table, as {@link MysqlCatalog} read it: the stored functions of every
     * database, which are never neutral whatever their name, and the views and tables whose SQL
     * (a view's definition, a trigger) is not neutral.
     */
    public static SqlFunctions mysql(Set<String> storedFunctions, Set<String> volatileWords) {
        Map<String, Volatility> byName = new HashMap<>();
        for (String f : storedFunctions) {
            byName.put(SqlLexer.foldAscii(f), Volatility.VOLATILE);
        }
        return new SqlFunctions(SqlDialect.MYSQL, byName, volatileWords, Set.of(), Set.of());
    }

    /** PostgreSQL's table, as {@link PostgresCatalog} read it. */
    public static SqlFunctions postgres(Map<String, Volatility> byName, Set<String> volatileWords, Set<String> keptValueWords,
            Set<String> volatileOperators) {
        return new SqlFunctions(SqlDialect.POSTGRES, byName, volatileWords, keptValueWords, volatileOperators);
    }

    /**
     * Whether a call of {@code name} (a word, or a quoted name) is neutral. {@code qualified}: the
     * name came with a schema; {@code arguments}: something stands between its parentheses;
     * {@code adjacent}: the parenthesis follows the name with no space.
     */
    boolean neutralCall(String name, boolean quoted, boolean qualified, boolean arguments, boolean adjacent) {
        switch (dialect) {
            case POSTGRES -> {
                String key = postgresKey(name, quoted);
                if (!quoted && !qualified && SYNTAX_POSTGRES.contains(key)) {
                    return true;
                }
                if (RUN_QUERIES_POSTGRES.contains(key)) {
                    return false;
                }
                Volatility v = byName.get(key);
                return v == Volatility.NEUTRAL || v == Volatility.BUILTIN_VOLATILE && HARMLESS_POSTGRES.contains(key);
            }
            case MYSQL -> {
                String key = SqlLexer.foldAscii(name);
                if (quoted || qualified) {
                    return false; // a stored function: builtins are called by their bare name
                }
                if (byName.get(key) == Volatility.VOLATILE) {
                    return false; // a stored function of that name (one named like another server's builtin)
                }
                if (!adjacent && !SYNTAX_MYSQL.contains(key)) {
                    return false; // CONCAT (…): with a space MySQL may take the name for a stored function's
                }
                return key.equals("last_insert_id") ? !arguments : NEUTRAL_MYSQL.contains(key);
            }
            default -> {
                String key = SqlLexer.foldAscii(name);
                return !quoted && !qualified && NEUTRAL_STANDARD.contains(key) && !(arguments && key.equals("last_insert_id"));
            }
        }
    }

    /** Whether {@code other} says the same of every name: a read that found no change keeps prepared statements' answers. */
    boolean sameAs(SqlFunctions other) {
        return other != null && dialect == other.dialect && byName.equals(other.byName)
                && volatileWords.equals(other.volatileWords) && keptValueWords.equals(other.keptValueWords)
                && volatileOperators.equals(other.volatileOperators) && searchPathWords.equals(other.searchPathWords)
                && quietTables.equals(other.quietTables);
    }

    /**
     * Adds the tables of {@code keyByTable} (a table's name, whether it may generate a key) that
     * never do under their name, and whose SQL the server runs on an INSERT (defaults, checks,
     * policies: {@code sqlByName}) leaves nothing and touches no session state, as {@code classifier}
     * reads it. A name in {@code words} (a rule, a trigger, a volatile cast) is never quiet. Before
     * the table is used.
     */
    public void addQuietTables(Map<String, Boolean> keyByTable, Map<String, java.util.List<String>> sqlByName,
            Set<String> words, SqlClassifier classifier) {
        Map<String, Boolean> folded = new HashMap<>();
        keyByTable.forEach((name, key) -> folded.merge(SqlLexer.foldAscii(name), key, Boolean::logicalOr));
        Map<String, java.util.List<String>> sql = new HashMap<>();
        sqlByName.forEach((name, list) -> sql.computeIfAbsent(SqlLexer.foldAscii(name), k -> new java.util.ArrayList<>()).addAll(list));
        Set<String> unquiet = new java.util.HashSet<>();
        words.forEach(w -> unquiet.add(SqlLexer.foldAscii(w)));
        folded.forEach((name, key) -> {
            if (!key && !unquiet.contains(name) && sql.getOrDefault(name, java.util.List.of()).stream().allMatch(text -> {
                SqlEffect e = classifier.classify(text);
                return !e.session && (e.values & ~SqlEffect.SETS_FOUND) == 0;
            })) {
                quietTables.add(name);
            }
        });
    }

    /** Whether an INSERT into the table named {@code name} leaves no generated key ({@link #addQuietTables}). */
    boolean quietTable(String name) {
        return !quietTables.isEmpty() && quietTables.contains(SqlLexer.foldAscii(name));
    }

    /** PostgreSQL: whether {@code name} is a function that may change the search path. */
    boolean searchPathWord(String name, boolean quoted) {
        return !searchPathWords.isEmpty() && searchPathWords.contains(postgresKey(name, quoted));
    }

    /**
     * PostgreSQL: notes the functions of {@code sourceByName} whose source may change the search
     * path (it names it, {@code SCHEMA}, {@code set_config} or {@code pg_settings}: {@link
     * SqlClassifier#mayChangeSearchPath}'s words), and those whose source names one of them, until
     * none is added. Before the table is used.
     */
    public void addSearchPathSetters(Map<String, java.util.List<String>> sourceByName) {
        java.util.ArrayDeque<String> added = new java.util.ArrayDeque<>();
        sourceByName.forEach((name, sources) -> {
            if (sources.stream().anyMatch(src -> SqlClassifier.SEARCH_PATH.matcher(src).find()) && searchPathWords.add(name)) {
                added.add(name);
            }
        });
        while (!added.isEmpty()) {
            String name = SqlLexer.foldAscii(added.poll());
            sourceByName.forEach((holder, sources) -> {
                if (!searchPathWords.contains(holder) && sources.stream().anyMatch(src -> SqlLexer.foldAscii(src).contains(name))) {
                    searchPathWords.add(holder);
                    added.add(holder);
                }
            });
        }
    }

    /** PostgreSQL: whether a name, wherever it stands, may run a volatile function (a view's rule, {@code t.f}). */
    boolean volatileWord(String name, boolean quoted) {
        return !volatileWords.isEmpty()
                && volatileWords.contains(dialect == SqlDialect.POSTGRES ? postgresKey(name, quoted) : SqlLexer.foldAscii(name));
    }

    /**
     * The name PostgreSQL looks up: unquoted names folded to lower case in A–Z only (as the server
     * does in UTF-8), and cut to 63 bytes (NAMEDATALEN - 1) at a character's start, as the server
     * cuts every identifier.
     */
    static String postgresKey(String name, boolean quoted) {
        String key = quoted ? name : SqlLexer.foldAscii(name);
        if (key.length() * 3 <= 63 || key.getBytes(StandardCharsets.UTF_8).length <= 63) {
            return key;
        }
        int bytes = 0;
        int end = 0;
        while (end < key.length()) {
            int cp = key.codePointAt(end);
            int size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (bytes + size > 63) {
                break;
            }
            bytes += size;
            end += Character.charCount(cp);
        }
        return key.substring(0, end);
    }

    /** PostgreSQL: whether a name is a relation through which a statement reads a value the session keeps. */
    boolean keptValueWord(String name, boolean quoted) {
        return !keptValueWords.isEmpty() && keptValueWords.contains(postgresKey(name, quoted));
    }

    /** PostgreSQL: whether the run of operator characters {@code op} holds an operator whose function is volatile. */
    boolean volatileOperator(String op) {
        for (String v : volatileOperators) {
            if (op.contains(v)) {
                return true;
            }
        }
        return false;
    }

    boolean hasVolatileOperators() {
        return !volatileOperators.isEmpty();
    }
}
