package dev.loompool.jdbc.internal.driver;

import dev.loompool.jdbc.internal.sql.SqlClassifier;
import dev.loompool.jdbc.internal.sql.SqlDialect;
import dev.loompool.jdbc.internal.sql.SqlEffect;
import dev.loompool.jdbc.internal.sql.SqlFunctions;
import dev.loompool.jdbc.internal.sql.SqlFunctions.Volatility;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads PostgreSQL's word on what may change a session ({@link SqlFunctions}): every function's
 * volatility, and the SQL the server runs for a relation without the text naming it — a view's
 * definition, a rule, a table's or domain's CHECK constraints, row security policies, column
 * defaults and generated columns, casts through a volatile function (their types, and the tables
 * with a column of one, pin). The catalog records no dependency on a builtin function (they
 * are pinned), so those expressions are read as SQL and classified with the function table; a
 * relation whose SQL is not neutral becomes a word that pins, and one whose SQL reads a value the
 * session keeps ({@code currval}, {@code lastval}) a word that reads it; so does a function whose
 * source reads one, or calls such a function ({@link SqlFunctions#addKeptReaders}); and the tables an INSERT into
 * generates no key in ({@link #TABLE_KEYS}), and the tables whose trigger reads a kept value
 * ({@link #TRIGGER_FUNCTIONS}). Six catalog queries, sent as one text (one round trip), run
 * at the pool's start and again when {@link SqlClassifier#refreshDue} says, in a transaction of
 * their own ({@link FunctionCatalog#read}).
 */
final class PostgresCatalog {

    /**
     * Per function name: any overload volatile, any volatile overload outside pg_catalog and the
     * reviewed extensions, the same with one argument ({@code t.f} calls {@code f(t)}). An
     * aggregate counts as volatile when one of its support functions is (CREATE AGGREGATE records
     * every aggregate as immutable).
     */
    private static final String FUNCTIONS = "WITH agg AS (SELECT DISTINCT a.aggfnoid FROM pg_aggregate a"
            + " CROSS JOIN LATERAL unnest(ARRAY[a.aggtransfn, a.aggfinalfn, a.aggcombinefn, a.aggserialfn,"
            + " a.aggdeserialfn, a.aggmtransfn, a.aggminvtransfn, a.aggmfinalfn]::oid[]) s(fn)"
            + " JOIN pg_proc f ON f.oid = s.fn WHERE f.provolatile = 'v'),"
            + " ext AS (SELECT d.objid FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid"
            + " WHERE d.classid = 'pg_proc'::regclass AND d.deptype = 'e' AND e.extname IN ('uuid-ossp', 'pgcrypto'))"
            + " SELECT proname, bool_or(v), bool_or(v AND NOT builtin), bool_or(v AND NOT builtin AND pronargs = 1)"
            + " FROM (SELECT p.proname, p.pronargs, p.provolatile = 'v' OR p.oid IN (SELECT aggfnoid FROM agg) AS v,"
            + " p.pronamespace = 'pg_catalog'::regnamespace OR p.oid IN (SELECT objid FROM ext) AS builtin"
            + " FROM pg_proc p) f GROUP BY proname";

    private static final String OPERATORS = "SELECT DISTINCT o.oprname FROM pg_operator o"
            + " JOIN pg_proc p ON p.oid = o.oprcode WHERE p.provolatile = 'v'";

    /** The types of casts through a volatile function: the ones not builtin, or both if neither is. */
    private static final String VOLATILE_CAST_TYPES = "(SELECT u.typ FROM pg_cast k JOIN pg_proc p ON p.oid = k.castfunc"
            + " CROSS JOIN LATERAL (VALUES (k.castsource), (k.casttarget)) u(typ) JOIN pg_type t ON t.oid = u.typ"
            + " WHERE p.provolatile = 'v' AND (t.typnamespace <> 'pg_catalog'::regnamespace OR NOT EXISTS (SELECT 1"
            + " FROM pg_type o WHERE o.oid IN (k.castsource, k.casttarget) AND o.typnamespace <> 'pg_catalog'::regnamespace))) v";

    /**
     * The SQL the server runs for a relation (or a domain) the text names, one row each: a view's
     * definition, a CREATE RULE or a volatile cast (null: pins), CHECK
     * constraints of tables, of domains and of the tables with a column of such a domain, policies
     * and defaults. Materialized views do not run theirs when read.
     */
    private static final String RELATION_SQL = "SELECT c.relname, CASE WHEN r.rulename = '_RETURN'"
            + " THEN pg_get_viewdef(c.oid) END FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class"
            + " WHERE c.relkind <> 'm' AND c.relnamespace NOT IN ('pg_catalog'::regnamespace,"
            + " 'information_schema'::regnamespace)"
            + " UNION ALL SELECT c.relname, 'SELECT ' || pg_get_expr(x.conbin, x.conrelid) FROM pg_constraint x"
            + " JOIN pg_class c ON c.oid = x.conrelid WHERE x.contype = 'c'"
            + " UNION ALL SELECT t.typname, 'SELECT ' || pg_get_expr(x.conbin, 0) FROM pg_constraint x"
            + " JOIN pg_type t ON t.oid = x.contypid WHERE x.contype = 'c' AND t.typnamespace <> 'information_schema'::regnamespace"
            + " UNION ALL SELECT c.relname, 'SELECT ' || pg_get_expr(x.conbin, 0) FROM pg_constraint x"
            + " JOIN pg_attribute a ON a.atttypid = x.contypid AND NOT a.attisdropped JOIN pg_class c ON c.oid = a.attrelid"
            + " WHERE x.contype = 'c' AND c.relnamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)"
            + " UNION ALL SELECT c.relname, 'SELECT ' || pg_get_expr(p.polqual, p.polrelid) FROM pg_policy p"
            + " JOIN pg_class c ON c.oid = p.polrelid WHERE p.polqual IS NOT NULL"
            + " UNION ALL SELECT c.relname, 'SELECT ' || pg_get_expr(p.polwithcheck, p.polrelid) FROM pg_policy p"
            + " JOIN pg_class c ON c.oid = p.polrelid WHERE p.polwithcheck IS NOT NULL"
            + " UNION ALL SELECT c.relname, 'SELECT ' || pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d"
            + " JOIN pg_class c ON c.oid = d.adrelid WHERE c.relnamespace <> 'pg_catalog'::regnamespace"
            // a cast through a volatile function: its types that are not builtin (both if neither is), and
            // the tables with a column of one (assignment casts)
            + " UNION ALL SELECT t.typname, NULL FROM " + VOLATILE_CAST_TYPES + " JOIN pg_type t ON t.oid = v.typ"
            + " UNION ALL SELECT c.relname, NULL FROM " + VOLATILE_CAST_TYPES + " JOIN pg_attribute a ON a.atttypid = v.typ"
            + " AND NOT a.attisdropped JOIN pg_class c ON c.oid = a.attrelid"
            + " WHERE c.relnamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)";

    /**
     * The source of the functions that may read a value the session keeps or change the search
     * path: those whose source (SQL, PL/pgSQL and the other languages whose source is text; not C,
     * not internal; outside pg_catalog) names {@code currval}, {@code lastval}, the search path,
     * {@code set_config} and the like, and those whose source names one of them, by a plain search
     * in the server; the pool then decides on each ({@link SqlFunctions#addKeptReaders},
     * {@link SqlFunctions#addSearchPathSetters}). A SQL function with a standard body
     * ({@code BEGIN ATOMIC}) keeps none in {@code prosrc}: its definition is read instead, and the
     * body taken from it ({@link #body}).
     */
    private static final String FUNCTION_SOURCES = "WITH RECURSIVE src AS (SELECT p.proname, CASE WHEN p.prosrc = ''"
            + " THEN pg_get_functiondef(p.oid) ELSE p.prosrc END AS s FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang"
            + " WHERE l.lanname NOT IN ('c', 'internal') AND p.pronamespace NOT IN ('pg_catalog'::regnamespace,"
            + " 'information_schema'::regnamespace)),"
            // an escape string: a plain one reads '\\m' as 'm' under standard_conforming_strings = off (a URL's
            // options), and the search found nothing: a STABLE function reading currval was neutral
            + " k(name) AS (SELECT proname FROM src WHERE s ~* E'\\\\m(currval|lastval|search_path|schema|set_config|pg_settings)\\\\M'"
            + " UNION SELECT src.proname FROM src JOIN k ON position(lower(k.name) IN lower(src.s)) > 0)"
            + " SELECT proname, s FROM src WHERE proname IN (SELECT name FROM k)";

    /**
     * Every table, view and foreign table by name, and whether an INSERT into it may generate a key
     * (set {@code lastval()}) without its SQL saying so: anything but a plain table (a view's
     * INSERT reaches its base table, a partitioned one its partitions), an identity column, a
     * column of a domain with a default, a trigger or a rule, a function of the database's own
     * called by a default, constraint, policy or index. A column default is SQL of
     * {@link #RELATION_SQL}, classified: {@code nextval} leaves a value
     * ({@link SqlFunctions#addQuietTables}).
     */
    private static final String TABLE_KEYS = "SELECT c.relname, c.relkind <> 'r'"
            + " OR EXISTS (SELECT 1 FROM pg_attribute a LEFT JOIN pg_type t ON t.oid = a.atttypid WHERE a.attrelid = c.oid"
            + " AND a.attnum > 0 AND NOT a.attisdropped AND (a.attidentity <> '' OR t.typdefaultbin IS NOT NULL))"
            + " OR EXISTS (SELECT 1 FROM pg_trigger g WHERE g.tgrelid = c.oid AND NOT g.tgisinternal)"
            + " OR EXISTS (SELECT 1 FROM pg_rewrite r WHERE r.ev_class = c.oid)"
            // a function of the database's own (the catalog records no dependency on a builtin) that a default,
            // a constraint (of the table, or of a domain of its columns), a policy or an index of the table calls:
            // its source may take a nextval, whatever it is declared (STABLE, IMMUTABLE)
            + " OR EXISTS (SELECT 1 FROM pg_depend d WHERE d.refclassid = 'pg_proc'::regclass AND ("
            + "(d.classid = 'pg_attrdef'::regclass AND d.objid IN (SELECT oid FROM pg_attrdef WHERE adrelid = c.oid))"
            + " OR (d.classid = 'pg_constraint'::regclass AND d.objid IN (SELECT oid FROM pg_constraint WHERE conrelid = c.oid"
            + " OR contypid IN (SELECT atttypid FROM pg_attribute WHERE attrelid = c.oid AND attnum > 0)))"
            + " OR (d.classid = 'pg_policy'::regclass AND d.objid IN (SELECT oid FROM pg_policy WHERE polrelid = c.oid))"
            + " OR (d.classid = 'pg_class'::regclass AND (d.objid = c.oid"
            + " OR d.objid IN (SELECT indexrelid FROM pg_index WHERE indrelid = c.oid)))))"
            + " FROM pg_class c WHERE c.relkind IN ('r', 'p', 'v', 'f') AND c.relnamespace NOT IN"
            + " ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)";

    /** Each table's trigger functions: a table whose trigger reads a value the session keeps reads it too. */
    private static final String TRIGGER_FUNCTIONS = "SELECT c.relname, p.proname FROM pg_trigger g"
            + " JOIN pg_class c ON c.oid = g.tgrelid JOIN pg_proc p ON p.oid = g.tgfoid WHERE NOT g.tgisinternal";

    private static final Pattern ATOMIC_HEAD = Pattern.compile("(?is)^\\s*CREATE\\b.*?\\bBEGIN\\s+ATOMIC\\b");

    private PostgresCatalog() {
    }

    /** The six queries, one text: {@link #read} takes their results in this order. */
    static final String QUERIES = String.join("; ", FUNCTIONS, OPERATORS, RELATION_SQL, TABLE_KEYS,
            TRIGGER_FUNCTIONS, FUNCTION_SOURCES);

    /** The table from the results of {@link #QUERIES}, the next six of {@code results}. */
    static SqlFunctions read(ResultSets results) throws SQLException {
        Map<String, Volatility> byName = new HashMap<>(4096);
        Set<String> words = new HashSet<>();
        Set<String> kept = new HashSet<>();
        Set<String> operators = new HashSet<>();
        Map<String, List<String>> relationSql = new HashMap<>();
        Map<String, List<String>> functionSource = new HashMap<>();
        Map<String, Boolean> tableKeys = new HashMap<>();
        Map<String, List<String>> triggers = new HashMap<>();
        try (ResultSet rs = results.next()) { // FUNCTIONS
            while (rs.next()) {
                String name = rs.getString(1);
                byName.put(name, Volatility.of(rs.getBoolean(2), rs.getBoolean(3)));
                if (rs.getBoolean(4)) {
                    words.add(name);
                }
            }
        }
        try (ResultSet rs = results.next()) { // OPERATORS
            while (rs.next()) {
                operators.add(rs.getString(1));
            }
        }
        try (ResultSet rs = results.next()) { // RELATION_SQL
            while (rs.next()) {
                if (rs.getString(2) == null) {
                    words.add(rs.getString(1));
                } else {
                    relationSql.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(rs.getString(2));
                }
            }
        }
        try (ResultSet rs = results.next()) { // TABLE_KEYS
            while (rs.next()) {
                tableKeys.merge(rs.getString(1), rs.getBoolean(2), Boolean::logicalOr);
            }
        }
        try (ResultSet rs = results.next()) { // TRIGGER_FUNCTIONS
            while (rs.next()) {
                triggers.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(rs.getString(2));
            }
        }
        try (ResultSet rs = results.next()) { // FUNCTION_SOURCES
            while (rs.next()) {
                if (rs.getString(2) != null) {
                    functionSource.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(body(rs.getString(2)));
                }
            }
        }
        SqlFunctions table = SqlFunctions.postgres(byName, words, kept, operators);
        SqlClassifier classifier = new SqlClassifier(SqlDialect.POSTGRES);
        classifier.useFunctions(table, 0);
        SqlFunctions.addUnneutral(relationSql, words, classifier, e -> e.session);
        SqlFunctions.addUnneutral(relationSql, kept, classifier, e -> (e.values & SqlEffect.READS_KEPT) != 0);
        SqlFunctions.addKeptReaders(functionSource, kept, classifier);
        triggers.forEach((relation, functions) -> {
            if (functions.stream().anyMatch(kept::contains)) {
                kept.add(relation); // an INSERT into it reads the value its trigger reads (NEW.pid := currval(…))
            }
        });
        table.addSearchPathSetters(functionSource);
        table.addQuietTables(tableKeys, relationSql, words, classifier);
        return table;
    }

    /** The body of a function: a standard SQL body ({@code BEGIN ATOMIC … END}) without the CREATE before it. */
    static String body(String source) {
        Matcher m = ATOMIC_HEAD.matcher(source);
        return m.find() ? "BEGIN ATOMIC" + source.substring(m.end()) : source;
    }
}
