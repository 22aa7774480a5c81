package dev.loompool.jdbc.internal.sql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;

/**
 * What a session holds that the next borrower of its connection could see, as lines of text: the
 * differential fuzzer compares it before and after a text the classifier calls neutral. It reads
 * the server's own views, never the pool's idea of the session. The pool's sequence fuzzer
 * ({@code dev.loompool.jdbc.fuzz.PoolSequenceFuzzTest}) reads it through a pool's handle
 * ({@link #throughHandle}).
 */
public final class SessionFingerprint {

    /** The names the generated texts use for what they leave behind (FuzzTexts). */
    static final List<String> PG_CUSTOM_SETTINGS = List.of("fz.x", "fz.y", "fz.z");
    static final List<String> MY_LOCKS = List.of("fz_lock", "fz_lock2");
    static final List<String> MY_TABLES = List.of(FuzzTarget.TABLE, "fz_tmp", "fz_tmp2");
    static final List<String> PREPARED = List.of("fz_p", "fz_p2");

    private static final String[] POSTGRES = {
        // every setting, with where it came from: SET, set_config(…, false), SET ROLE and
        // SET SESSION AUTHORIZATION all show here (source 'session')
        "SELECT 'setting', name, setting, source FROM pg_settings",
        // A custom name once set, even by SET LOCAL, stays defined as '' (a placeholder) where it was
        // NULL: PostgreSQL cannot undefine it, a known limit (README). Its value counts, not that.
        "SELECT 'custom', n, NULLIF(current_setting(n, true), '') FROM unnest(ARRAY['"
                + String.join("','", PG_CUSTOM_SETTINGS) + "']) AS n",
        // role is not in pg_settings (GUC_NO_SHOW_ALL): SET ROLE shows here
        "SELECT 'user', current_user, session_user, current_setting('role')",
        // this backend's own temp schema only
        "SELECT 'temp relation', relname, relkind FROM pg_class WHERE relnamespace = pg_my_temp_schema()",
        "SELECT 'temp function', proname FROM pg_proc WHERE pronamespace = pg_my_temp_schema()",
        // Outside a transaction (checked first) the only locks that outlive a statement are
        // session-level advisory locks; the relation and virtualxid locks of this query are its own.
        "SELECT 'lock', locktype, classid, objid, objsubid, mode, granted FROM pg_locks"
                + " WHERE pid = pg_backend_pid() AND locktype IN ('advisory', 'transactionid')",
        "SELECT 'listen', c FROM pg_listening_channels() AS c",
        // pgjdbc prepares on the server by itself (from_sql false): only SQL PREPARE counts
        "SELECT 'prepared', name, statement FROM pg_prepared_statements WHERE from_sql",
        "SELECT 'cursor', name, statement, is_holdable FROM pg_cursors",
    };

    /** Session variables that change by themselves, with every statement or every read. */
    private static final Set<String> MY_SELF_CHANGING = Set.of(
            "TIMESTAMP", "LAST_INSERT_ID", "INSERT_ID", "IDENTITY", "WARNING_COUNT", "ERROR_COUNT",
            "RAND_SEED1", "RAND_SEED2", "PSEUDO_THREAD_ID", "LAST_GTID", "GTID_SEQ_NO", "SERVER_ID");

    private static final String[] MARIADB = {
        "SELECT 'user variable', VARIABLE_NAME, VARIABLE_VALUE, VARIABLE_TYPE FROM information_schema.USER_VARIABLES",
        "SELECT 'variable', VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.SESSION_VARIABLES"
                + " WHERE VARIABLE_NAME NOT IN ('" + String.join("','", MY_SELF_CHANGING) + "')",
        "SELECT 'database', DATABASE()",
        // whether this session holds it: a connection closed just before may still hold it for a
        // moment (the server lets go at its disconnect), which is not this session's doing
        "SELECT 'lock', n, COALESCE(IS_USED_LOCK(n) = CONNECTION_ID(), 0) FROM (SELECT '"
                + String.join("' AS n UNION ALL SELECT '", MY_LOCKS) + "' AS n) AS locks",
    };

    private SessionFingerprint() {
    }

    static Set<String> of(Connection c, SqlDialect dialect) throws SQLException {
        Set<String> lines = new TreeSet<>();
        if (dialect == SqlDialect.POSTGRES) {
            TransactionState tx = c.unwrap(BaseConnection.class).getTransactionState();
            lines.add("transaction " + tx);
            if (tx != TransactionState.IDLE) {
                try (Statement s = c.createStatement()) {
                    s.execute("ROLLBACK"); // an open or failed transaction is the finding; the rest is read after it
                }
            }
        }
        return read(c, dialect, List.of(), lines);
    }

    /**
     * The same, read through a pool's handle ({@code c}, pinned by the caller): the transaction
     * state is asked of the server by SQL, since unwrapping the driver's connection would make the
     * pool retire it; {@code moreTables} are names whose temporary shadows count too, and
     * {@code moreLocks} names of user locks this session may hold (MariaDB).
     */
    public static Set<String> throughHandle(Connection c, SqlDialect dialect, List<String> moreTables, List<String> moreLocks)
            throws SQLException {
        Set<String> lines = new TreeSet<>();
        if (dialect == SqlDialect.POSTGRES) {
            // SAVEPOINT runs only in a transaction block: 25P01 (no_active_sql_transaction) outside
            // one, 25P02 (in_failed_sql_transaction) in a failed one
            String tx;
            try (Statement s = c.createStatement()) {
                s.execute("SAVEPOINT loompool_fingerprint");
                tx = "OPEN";
            } catch (SQLException e) {
                tx = "25P01".equals(e.getSQLState()) ? "IDLE" : "25P02".equals(e.getSQLState()) ? "FAILED" : "? " + e.getSQLState();
            }
            lines.add("transaction " + tx);
            if (!"IDLE".equals(tx)) {
                try (Statement s = c.createStatement()) {
                    s.execute("ROLLBACK"); // an open or failed transaction is the finding; the rest is read after it
                }
            }
        }
        if (dialect != SqlDialect.POSTGRES && !moreLocks.isEmpty()) {
            read(c, "SELECT 'lock', n, COALESCE(IS_USED_LOCK(n) = CONNECTION_ID(), 0) FROM (SELECT '"
                    + String.join("' AS n UNION ALL SELECT '", moreLocks) + "' AS n) AS locks", lines);
        }
        return read(c, dialect, moreTables, lines);
    }

    private static Set<String> read(Connection c, SqlDialect dialect, List<String> moreTables, Set<String> lines)
            throws SQLException {
        if (dialect == SqlDialect.POSTGRES) {
            for (String q : POSTGRES) {
                read(c, q, lines);
            }
        } else {
            for (String q : MARIADB) {
                read(c, q, lines);
            }
            // MariaDB 10.11 has no view of temporary tables (information_schema.TEMPORARY_TABLES
            // came in 11.2): SHOW CREATE TABLE names one, and a temporary table hides a base table.
            List<String> tables = new ArrayList<>(MY_TABLES);
            tables.addAll(moreTables);
            for (String table : tables) {
                lines.add(probe(c, "SHOW CREATE TABLE " + table, "table " + table));
            }
        }
        // SQL PREPARE on MariaDB has no view; on both, a name that can be deallocated was prepared.
        // Read last: it removes what it finds.
        for (String name : PREPARED) {
            lines.add(probe(c, "DEALLOCATE PREPARE " + name, "deallocate " + name));
        }
        return lines;
    }

    /** The first row's text, or that the statement failed (with the server's SQLState). */
    private static String probe(Connection c, String sql, String label) {
        try (Statement s = c.createStatement()) {
            if (s.execute(sql)) {
                try (ResultSet rs = s.getResultSet()) {
                    return label + ": " + (rs.next() ? oneLine(rs.getString(rs.getMetaData().getColumnCount())) : "no row");
                }
            }
            return label + ": done";
        } catch (SQLException e) {
            return label + ": fails " + e.getSQLState();
        }
    }

    private static String oneLine(String s) {
        return s == null ? null : s.replaceAll("\\s+", " ");
    }

    private static void read(Connection c, String sql, Set<String> lines) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            ResultSetMetaData md = rs.getMetaData();
            while (rs.next()) {
                StringBuilder line = new StringBuilder();
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    line.append(i == 1 ? "" : i == 2 ? ": " : " | ").append(rs.getString(i));
                }
                lines.add(line.toString());
            }
        }
    }

    /** What {@code after} has that {@code before} had not ({@code +}), and the reverse ({@code -}). */
    public static List<String> diff(Set<String> before, Set<String> after) {
        List<String> d = new ArrayList<>();
        for (String l : before) {
            if (!after.contains(l)) {
                d.add("- " + l);
            }
        }
        for (String l : after) {
            if (!before.contains(l)) {
                d.add("+ " + l);
            }
        }
        return d;
    }
}
