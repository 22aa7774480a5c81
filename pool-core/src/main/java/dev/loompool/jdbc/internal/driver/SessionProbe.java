package dev.loompool.jdbc.internal.driver;

import dev.loompool.jdbc.internal.sql.SqlFunctions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the pool reads of a new connection's session, in one round trip where the driver would
 * take several (issue 39: over a link of 100 ms each way every round trip of a connect costs
 * 200 ms, and the plain driver's connect and first query take four or five).
 * <ul>
 * <li>{@link #settings}: the {@link Settings} a connection has. pgjdbc answers
 * {@code getTransactionIsolation} ({@code SHOW TRANSACTION ISOLATION LEVEL}), {@code getSchema}
 * ({@code current_schema()}) and, from 42.7, {@code getCatalog} ({@code current_catalog}) with a
 * query each; here they are one query that asks the same. The rest it keeps in memory. The
 * configured defaults pgjdbc's setters would set with a query each (the isolation level, the
 * schema) are set in that query too ({@link #foldable}). Other drivers are asked as they are.</li>
 * <li>{@link #learn}: on the pool's first connection, what {@link SessionReset#detect} learns, in
 * one query with those settings when nothing was set on the session before they are read.
 * PostgreSQL: the settings the driver set ({@code source = 'session'}), each set again to its
 * own value to prove that a restore may set it, and a {@code setseed} to prove the reseed may
 * run. MariaDB Connector/J: the variables that differ from the global ones, the tracked ones and
 * the isolation level; the restore is tried by the first reset instead.</li>
 * </ul>
 * A server that refuses the first connection's query (an old version, a privilege) is asked the
 * way {@link SessionReset#detect} and {@link Settings#read} ask, a round trip each.
 */
public final class SessionProbe {

    private static final Logger log = LoggerFactory.getLogger(SessionProbe.class);

    /** pgjdbc's three getters that run a query, as one. */
    private static final String POSTGRES_SETTINGS = "SELECT current_setting('transaction_isolation'), "
            + "current_catalog::text, current_schema()::text";

    private SessionProbe() {
    }

    /**
     * What the pool's first connection taught: the reset, and the settings if they were read in
     * the same query (else null), and the catalog's table if it was read in the same round trip
     * (else null: read it on its own).
     */
    public record Learned(SessionReset reset, Settings settings, SqlFunctions functions) {
    }

    /** The settings {@code raw} has now: {@link Settings#read}, in one query on pgjdbc. */
    public static Settings settings(Connection raw) throws SQLException {
        return settings(raw, null, EnumSet.noneOf(SessionAttribute.class));
    }

    /**
     * Of the attributes {@code configured} marks, those {@link #settings(Connection, Settings, Set)}
     * sets in its own query instead of the driver's setters, a round trip each: on pgjdbc the
     * isolation level ({@code SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL}, which is
     * {@code default_transaction_isolation}) and the schema ({@code SET SESSION search_path TO
     * '<schema>'}, one name quoted as an identifier). Only on a connection no SQL ran on since it
     * was made or reset: nothing has a transaction open in which the level could not change.
     */
    public static EnumSet<SessionAttribute> foldable(Connection raw, Settings configured) {
        EnumSet<SessionAttribute> folded = EnumSet.noneOf(SessionAttribute.class);
        if (pgjdbc(raw)) {
            if (configured.marked.contains(SessionAttribute.ISOLATION) && postgresLevel(configured.isolation()) != null) {
                folded.add(SessionAttribute.ISOLATION);
            }
            if (configured.marked.contains(SessionAttribute.SCHEMA) && configured.schema() != null) {
                folded.add(SessionAttribute.SCHEMA);
            }
        }
        return folded;
    }

    /**
     * {@link #settings(Connection)}, after setting {@code folded} ({@link #foldable}) to
     * {@code configured}'s values in the same query. The settings are read after the sets (a
     * subquery the server runs first): the isolation as the session's default, which a statement
     * in a transaction of its own would run at, as pgjdbc's getter reads it outside one.
     */
    public static Settings settings(Connection raw, Settings configured, Set<SessionAttribute> folded)
            throws SQLException {
        if (!pgjdbc(raw)) {
            return Settings.read(raw);
        }
        if (folded.isEmpty()) {
            try (Statement st = raw.createStatement(); ResultSet rs = st.executeQuery(POSTGRES_SETTINGS)) {
                rs.next();
                return Settings.read(raw, rs.getString(1), rs.getString(2), rs.getString(3));
            }
        }
        List<String> sets = new ArrayList<>();
        List<String> values = new ArrayList<>();
        if (folded.contains(SessionAttribute.ISOLATION)) {
            sets.add("set_config('default_transaction_isolation', ?, false)");
            values.add(postgresLevel(configured.isolation()));
        }
        if (folded.contains(SessionAttribute.SCHEMA)) {
            sets.add("set_config('search_path', pg_catalog.quote_ident(?), false)");
            values.add(configured.schema());
        }
        String sql = "SELECT current_setting('default_transaction_isolation'), current_catalog::text, "
                + "current_schema()::text FROM (SELECT " + String.join(", ", sets) + ") applied";
        try (PreparedStatement ps = raw.prepareStatement(sql)) {
            for (int i = 0; i < values.size(); i++) {
                ps.setString(i + 1, values.get(i));
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return Settings.read(raw, rs.getString(1), rs.getString(2), rs.getString(3));
            }
        }
    }

    /** The level as PostgreSQL names it, as pgjdbc's setTransactionIsolation sends it; null for none of its four. */
    private static String postgresLevel(int level) {
        return switch (level) {
            case Connection.TRANSACTION_READ_UNCOMMITTED -> "read uncommitted";
            case Connection.TRANSACTION_READ_COMMITTED -> "read committed";
            case Connection.TRANSACTION_REPEATABLE_READ -> "repeatable read";
            case Connection.TRANSACTION_SERIALIZABLE -> "serializable";
            default -> null;
        };
    }

    /**
     * {@link SessionReset#detect} on {@code raw}, fresh from the driver; with {@code readSettings},
     * also {@link #settings} (the caller sets nothing on the session before it would read them);
     * with {@code readCatalog}, also the catalog's table ({@link FunctionCatalog}) in the same
     * round trip where the driver allows (pgjdbc, and MariaDB's when it resets sessions): a cold
     * pool's first query then costs one round trip more than the driver's, not nine.
     */
    public static Learned learn(Connection raw, String product, boolean driverResets, boolean readSettings,
            boolean readCatalog) throws SQLException {
        if (product != null && product.contains("PostgreSQL") && pgjdbc(raw)) {
            TypeNames names = TypeNames.of(raw); // first: before a query of ours could add to them
            if (readCatalog) {
                try {
                    return postgres(raw, names, readSettings, true);
                } catch (SQLException e) {
                    if (BrokenConnections.isBroken(e)) {
                        throw e;
                    }
                    FunctionCatalog.rollbackText(raw);
                    log.debug("the session's settings and the catalog were not readable in one round trip (SQLState "
                            + "{}): read apart", e.getSQLState(), e);
                }
            }
            try {
                return postgres(raw, names, readSettings, false);
            } catch (SQLException e) {
                if (BrokenConnections.isBroken(e)) {
                    throw e;
                }
                log.debug("the session's settings were not readable in one query (SQLState {}): asked one by one",
                        e.getSQLState(), e);
                return new Learned(SessionReset.postgres(raw, names), null, null);
            }
        }
        if (product != null && product.contains("MariaDB") && driverResets) {
            if (readCatalog) {
                try {
                    return mariadb(raw, readSettings, true);
                } catch (SQLException e) {
                    if (BrokenConnections.isBroken(e)) {
                        throw e;
                    }
                    log.debug("the session's variables and the catalog were not readable in one query (SQLState {}): "
                            + "read apart", e.getSQLState(), e);
                }
            }
            try {
                return mariadb(raw, readSettings, false);
            } catch (SQLException e) {
                if (BrokenConnections.isBroken(e)) {
                    throw e;
                }
                log.debug("the session's variables were not readable in one query (SQLState {}): asked one by one",
                        e.getSQLState(), e);
            }
        }
        return new Learned(SessionReset.detect(raw, product, driverResets), null, null);
    }

    /**
     * Rows of (kind, name, value): 's' a setting the driver set, set again to its value by the same
     * query; 'i', 'c', 'n' the isolation, catalog and schema; 'r' the row of the setseed. With
     * {@code readCatalog}, in the transaction of the catalog's read, after it begins and before
     * its queries, all one text: the transaction's rollback undoes nothing the query set (each
     * setting was set to its own value).
     */
    private static Learned postgres(Connection raw, TypeNames names, boolean readSettings, boolean readCatalog)
            throws SQLException {
        String sql = "SELECT 's', name, set_config(name, current_setting(name), false) FROM pg_settings "
                + "WHERE source = 'session'"
                + (readSettings ? " UNION ALL SELECT 'i', NULL, current_setting('transaction_isolation') "
                        + "UNION ALL SELECT 'c', NULL, current_catalog::text UNION ALL SELECT 'n', NULL, current_schema()::text" : "")
                + " UNION ALL SELECT 'r', NULL, NULL FROM " + SessionReset.seedCall();
        Map<String, String> set = new LinkedHashMap<>();
        Map<String, String> values = new LinkedHashMap<>();
        SqlFunctions functions = null;
        try (Statement st = raw.createStatement()) {
            st.execute(readCatalog ? "BEGIN; " + sql + "; " + FunctionCatalog.postgresAfterBegin() : sql);
            ResultSets results = new ResultSets(st);
            try (ResultSet rs = results.next()) {
                while (rs.next()) {
                    if (rs.getString(1).equals("s")) {
                        set.put(rs.getString(2), rs.getString(3));
                    } else {
                        values.put(rs.getString(1), rs.getString(3));
                    }
                }
            }
            if (readCatalog) {
                functions = FunctionCatalog.postgres(results);
            }
        }
        if (!values.containsKey("r")) {
            throw new SQLException("setseed gave no row"); // not expected of any server: asked one by one
        }
        Settings settings = readSettings ? Settings.read(raw, values.get("i"), values.get("c"), values.get("n")) : null;
        return new Learned(SessionReset.postgres(raw, names, set, true, true), settings, functions);
    }

    /**
     * Rows of (kind, name, value): 'v' a variable that differs from the global one; 't' the tracked
     * list; 'i' the isolation; with {@code readCatalog}, the catalog's rows ({@link MysqlCatalog#ROWS},
     * capital kinds) in the same query.
     */
    private static Learned mariadb(Connection raw, boolean readSettings, boolean readCatalog) throws SQLException {
        String sql = "SELECT 'v', d.* FROM (" + MysqlRestore.differingVariables("information_schema") + ") d"
                + " UNION ALL SELECT 't', NULL, @@SESSION.session_track_system_variables"
                + (readSettings ? " UNION ALL SELECT 'i', NULL, @@SESSION.tx_isolation" : "")
                + (readCatalog ? " UNION ALL " + MysqlCatalog.ROWS : "");
        Map<String, String> differ = new LinkedHashMap<>();
        Map<String, String> values = new LinkedHashMap<>();
        MysqlCatalog.Rows catalog = new MysqlCatalog.Rows();
        try (Statement st = raw.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                String kind = rs.getString(1);
                if (kind.equals("v")) {
                    differ.put(rs.getString(2), rs.getString(3));
                } else if (!catalog.add(kind, rs.getString(2), rs.getString(3))) {
                    values.put(kind, rs.getString(3));
                }
            }
        }
        if (readCatalog && !raw.getAutoCommit()) {
            raw.rollback(); // as MysqlCatalog's own read: no transaction kept open on the catalog
        }
        Settings settings = readSettings ? Settings.read(raw, values.get("i")) : null;
        String tracked = values.get("t");
        return new Learned(SessionReset.mariadb(raw, differ, tracked == null ? "" : tracked), settings,
                readCatalog ? catalog.table() : null);
    }

    /** pgjdbc, whose getters are known to ask what {@link #POSTGRES_SETTINGS} asks. */
    private static boolean pgjdbc(Connection raw) {
        return raw.getClass().getName().startsWith("org.postgresql.");
    }
}
