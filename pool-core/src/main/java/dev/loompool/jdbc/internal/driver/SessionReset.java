package dev.loompool.jdbc.internal.driver;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLSyntaxErrorException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How to give a connection whose session SQL changed back the session of a fresh one, found once
 * from the pool's first connection before anything else touched it (DESIGN.md §4, "Reset on
 * return"):
 * <ol>
 * <li>wipe: PostgreSQL {@code DISCARD ALL}; MariaDB Connector/J {@code reset()} and MySQL
 * Connector/J {@code resetServerState()} (both COM_RESET_CONNECTION), through a method handle
 * because the core depends on no driver;</li>
 * <li>restore what the driver set on the session when it connected, which the wipe also takes:
 * pgjdbc's {@code application_name} and the other settings whose source is the session, MariaDB's
 * {@code sessionVariables}, its {@code sql_mode} and session tracking. They are read from the
 * fresh session and put back in one statement.</li>
 * </ol>
 * The caller then re-applies the pool's defaults and {@code connectionInitSql}. Anything else
 * cannot be reset: its connections are closed instead.
 */
public final class SessionReset {

    private static final Logger log = LoggerFactory.getLogger(SessionReset.class);

    public static final SessionReset NONE = new SessionReset(null, null, null, null, false, TypeNames.NONE);

    private final String wipeSql;
    private final MethodHandle wipeMethod;
    /** Puts back what the driver set at connect; null if it set nothing a wipe takes. */
    private final String restoreSql;
    /** pgjdbc's getNotifications(): drains what arrived for the last borrower's LISTEN. */
    private final MethodHandle drain;
    /** PostgreSQL: random() gets a new seed after the wipe, which keeps the last borrower's setseed(). */
    private final boolean reseed;
    /** pgjdbc's type names, learned per connection under the search path of the moment. */
    private final TypeNames typeNames;

    private SessionReset(String wipeSql, MethodHandle wipeMethod, String restoreSql, MethodHandle drain,
            boolean reseed, TypeNames typeNames) {
        this.wipeSql = wipeSql;
        this.wipeMethod = wipeMethod;
        this.restoreSql = restoreSql;
        this.drain = drain;
        this.reseed = reseed;
        this.typeNames = typeNames;
    }

    /**
     * Learns from {@code raw}, a connection fresh from the driver, which nobody has used.
     * {@code driverResets} is false where the driver was told not to reset (MariaDB's
     * {@code useResetConnection=false}): its connections with session state are closed instead.
     */
    public static SessionReset detect(Connection raw, String product, boolean driverResets) throws SQLException {
        if (product == null) {
            return NONE;
        }
        if (product.contains("PostgreSQL")) {
            TypeNames names = TypeNames.of(raw); // first: before a query of ours could add to them
            if (names.driverKeepsNames() && !names.restorable()) {
                log.warn("the driver's cache of type names cannot be cleared on this driver version: a connection whose "
                        + "session changed the search path is closed on return instead of reset");
            }
            Map<String, String> set = read(raw,
                    "SELECT name, current_setting(name) FROM pg_settings WHERE source = 'session'");
            List<String> calls = new ArrayList<>();
            set.forEach((name, value) -> calls.add("set_config(" + literal(name, false) + ", " + literal(value, false) + ", false)"));
            return new SessionReset("DISCARD ALL", null,
                    restorable(raw, calls.isEmpty() ? null : "SELECT " + String.join(", ", calls)), drain(raw),
                    reseeds(raw), names);
        }
        boolean maria = product.contains("MariaDB");
        if ((maria || product.contains("MySQL")) && driverResets) {
            MethodHandle wipe = byMethod(raw, maria ? "reset" : "resetServerState");
            String restore = maria ? withIsolationTold(raw, mysqlRestore(raw)) : mysqlRestore(raw);
            return wipe == null ? NONE : new SessionReset(null, wipe, restorable(raw, restore), null, false, TypeNames.NONE);
        }
        return NONE;
    }

    private static MethodHandle drain(Connection raw) {
        try {
            MethodHandle h = DriverMethods.find(raw.getClass(), "getNotifications");
            return h == null ? null : h.asType(MethodType.methodType(Object.class, Connection.class));
        } catch (IllegalAccessException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Whether a changed schema is undone by this reset rather than by {@code setSchema}: on
     * PostgreSQL {@code setSchema} leaves a search path of one schema, where a fresh session has
     * the whole path it connected with.
     */
    public boolean ownsSchema() {
        return wipeSql != null && supported();
    }

    /** {@code SET SESSION} of every variable the driver set to something else than the server's global value. */
    private static String mysqlRestore(Connection raw) {
        Map<String, String> set = Map.of();
        for (String schema : new String[] {"information_schema", "performance_schema"}) {
            try {
                set = read(raw, "SELECT s.variable_name, s.variable_value FROM " + schema + ".session_variables s JOIN "
                        + schema + ".global_variables g ON g.variable_name = s.variable_name "
                        + "WHERE NOT (s.variable_value <=> g.variable_value)");
                break;
            } catch (SQLException e) {
                log.debug("session variables not readable from {}", schema, e);
            }
        }
        List<String> assignments = new ArrayList<>();
        set.forEach((name, value) -> assignments.add(name.toLowerCase(Locale.ROOT) + " = "
                + (value == null ? "DEFAULT" : value.isEmpty() ? emptyOrNull(raw, name)
                        : value.matches("-?\\d+(\\.\\d+)?") ? value : literal(value, true))));
        return assignments.isEmpty() ? null : "SET SESSION " + String.join(", ", assignments);
    }

    /**
     * MariaDB Connector/J keeps the isolation level it last set, or heard of through the session
     * tracking it turns on, and answers {@code getTransactionIsolation} and skips a
     * {@code setTransactionIsolation} to that level from memory. COM_RESET_CONNECTION puts the
     * server's level back to the global one without a word to it, so the pool's default level
     * (set at connect) was not set again after a reset: the next borrower ran at the server's
     * default while the pool said otherwise (found by the pool's sequence fuzzer). Setting the
     * session's level to the global one at the end of the restore, once the tracking is back, tells
     * the driver the level it has. No round trip is added: it is the same statement.
     */
    private static String withIsolationTold(Connection raw, String restore) {
        String tracked;
        try (Statement st = raw.createStatement(); ResultSet rs = st.executeQuery("SELECT @@SESSION.session_track_system_variables")) {
            tracked = rs.next() && rs.getString(1) != null ? "," + rs.getString(1).toLowerCase(Locale.ROOT) + "," : "";
        } catch (SQLException e) {
            return restore; // no session tracking: the driver asks the server, and knows no level of its own
        }
        for (String name : new String[] {"transaction_isolation", "tx_isolation"}) { // MariaDB 11.1 renamed it
            if (tracked.contains("," + name + ",")) {
                String told = name + " = @@GLOBAL." + name;
                return restore == null ? "SET SESSION " + told : restore + ", " + told;
            }
        }
        return restore;
    }

    /**
     * The tables show a NULL as '' too: MySQL Connector/J sets {@code character_set_results = NULL}
     * at connect, and the server refuses it back as '' (an unknown character set), which left
     * every connection with session state closed instead of reset (found by the driver matrix).
     */
    private static String emptyOrNull(Connection raw, String name) {
        if (!name.matches("[A-Za-z0-9_]+")) {
            return "''";
        }
        try (Statement st = raw.createStatement(); ResultSet rs = st.executeQuery("SELECT @@SESSION." + name + " IS NULL")) {
            return rs.next() && rs.getBoolean(1) ? "NULL" : "''";
        } catch (SQLException e) {
            return "''";
        }
    }

    /**
     * The restore statement if it runs on the fresh session (where it changes nothing); a server
     * may refuse a variable that cannot be set per session, and then its connections cannot be
     * restored, only closed.
     */
    private static String restorable(Connection raw, String sql) throws SQLException {
        if (sql == null) {
            return null;
        }
        try (Statement st = raw.createStatement()) {
            st.execute(sql);
            return sql;
        } catch (SQLException e) {
            if (BrokenConnections.isBroken(e)) {
                throw e;
            }
            log.warn("the session the driver sets up cannot be restored after a reset (SQLState {}); connections "
                    + "with session state will be closed instead of reset", e.getSQLState());
            return UNRESTORABLE;
        }
    }

    private static final String UNRESTORABLE = "";

    private static Map<String, String> read(Connection raw, String sql) throws SQLException {
        Map<String, String> values = new LinkedHashMap<>();
        try (Statement st = raw.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                values.put(rs.getString(1), rs.getString(2));
            }
        }
        return values;
    }

    /** A string literal; MySQL reads backslashes in it as escapes, PostgreSQL (standard strings) does not. */
    private static String literal(String value, boolean backslashEscapes) {
        String v = backslashEscapes ? value.replace("\\", "\\\\") : value;
        return "'" + v.replace("'", "''") + "'";
    }

    private static MethodHandle byMethod(Connection raw, String name) {
        try {
            MethodHandle handle = MethodHandles.publicLookup()
                    .findVirtual(raw.getClass(), name, MethodType.methodType(void.class));
            return handle.asType(MethodType.methodType(void.class, Connection.class));
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    /**
     * DISCARD ALL keeps random()'s seed: a borrower who ran setseed() would know the next one's
     * values. A seed from the JVM, which no borrower sees, makes them unknown again. Qualified and
     * typed, so that no function of the application's named setseed runs instead.
     */
    private static String reseedSql() {
        return "SELECT pg_catalog.setseed(" + ThreadLocalRandom.current().nextDouble(-1, 1) + "::float8)";
    }

    /** Whether this user may run setseed (the server allows it to all unless told otherwise); tried once, at learn. */
    private static boolean reseeds(Connection raw) {
        try (Statement st = raw.createStatement()) {
            st.execute(reseedSql());
            return true;
        } catch (SQLException e) {
            log.warn("setseed() cannot run (SQLState {}): a returned connection's random() keeps the seed its last "
                    + "borrower set, if it could set one", e.getSQLState());
            return false;
        }
    }

    /**
     * What the wipe left that the next borrower would be hurt by, or null; looked at only after a
     * wipe (MySQL, MariaDB), in one query:
     * <ul>
     * <li>the database: COM_RESET_CONNECTION keeps the one {@code USE} chose, and MySQL Connector/J's
     * {@code getCatalog()} answers from its cache, which {@code USE} does not change, so only the
     * server tells. The session is put back in {@code database} (what a fresh connection is in:
     * {@link #database}); a connection made without one cannot go back to none, and must go.</li>
     * <li>the profiling history ({@code SET profiling=1}, then {@code SHOW PROFILES} shows the
     * statements of the last borrower), which the wipe keeps too.</li>
     * </ul>
     */
    public String leftover(Connection raw, String database) throws SQLException {
        if (wipeMethod == null) {
            return null;
        }
        String now;
        try (Statement st = raw.createStatement(); ResultSet rs = st.executeQuery(
                "SELECT DATABASE(), (SELECT COUNT(*) FROM information_schema.PROFILING)")) {
            rs.next();
            if (rs.getLong(2) > 0) {
                return "the session keeps a profiling history, which no reset removes";
            }
            now = rs.getString(1);
        } catch (SQLSyntaxErrorException e) {
            now = database(raw); // a server without profiling has no history to leave
        }
        String expected = none(database) ? null : database;
        if (expected == null) {
            return now == null ? null : NO_DATABASE_TO_GO_BACK_TO;
        }
        if (!expected.equals(now)) {
            try (Statement st = raw.createStatement()) {
                st.execute("USE `" + expected.replace("`", "``") + "`"); // by SQL: Connector/J's setCatalog may trust its cache
            }
        }
        return null;
    }

    /** Why a connection made without a database, on which one was chosen, must go. */
    public static final String NO_DATABASE_TO_GO_BACK_TO =
            "a database was chosen on a connection made without one, which cannot be unset";

    /**
     * Whether a catalog as a driver reports it means no database: MariaDB Connector/J says null,
     * MySQL Connector/J an empty string.
     */
    public static boolean none(String catalog) {
        return catalog == null || catalog.isEmpty();
    }

    /**
     * The database the session is in, as the server says, where a wipe can leave another than the
     * driver reports (MySQL, MariaDB: see {@link #leftover}); else {@code driverSays}. For a
     * connection whose init SQL may have run {@code USE}.
     */
    public String database(Connection raw, String driverSays) throws SQLException {
        return wipeMethod == null ? driverSays : database(raw);
    }

    private static String database(Connection raw) throws SQLException {
        try (Statement st = raw.createStatement(); ResultSet rs = st.executeQuery("SELECT DATABASE()")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /**
     * After a session that changed the search path ({@code setSchema}, {@code SET search_path} and
     * the like), reset by {@link #reset}: puts the driver's type names back as on a fresh
     * connection, which the wipe does not reach ({@link TypeNames}). Null when done or when the
     * driver keeps none; else why the connection cannot be reused, and it is closed.
     */
    public String forgetTypeNames(Connection raw) throws SQLException {
        if (!typeNames.driverKeepsNames() || typeNames.restore(raw)) {
            return null;
        }
        return "the driver's type names, looked up under the search path the session changed, cannot be cleared";
    }

    /** What {@link #reset} runs, for a Flight Recorder event: the wipe, and whether it restores the driver's settings. */
    public String describe() {
        if (!supported()) {
            return "none (this database's sessions cannot be reset)";
        }
        String wipe = wipeSql != null ? wipeSql : "COM_RESET_CONNECTION";
        return restoreSql == null ? wipe : wipe + " + the driver's session settings";
    }

    public boolean supported() {
        return (wipeSql != null || wipeMethod != null) && restoreSql != UNRESTORABLE;
    }

    /** Wipes the session and restores what the driver set; the caller rolled back first, and re-initialises after. */
    public void reset(Connection raw) throws SQLException {
        if (wipeSql != null) {
            try (Statement st = raw.createStatement()) {
                st.execute(wipeSql);
            }
        } else {
            try {
                wipeMethod.invokeExact(raw);
            } catch (SQLException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new SQLException("session reset failed", e);
            }
        }
        if (restoreSql != null) {
            try (Statement st = raw.createStatement()) {
                st.execute(restoreSql);
            }
        }
        if (reseed) {
            try (Statement st = raw.createStatement()) {
                st.execute(reseedSql());
            }
        }
        if (drain != null) {
            try {
                Object ignored = (Object) drain.invokeExact(raw); // notifications the last borrower's LISTEN received
            } catch (SQLException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new SQLException("could not drain notifications", e);
            }
        }
    }
}
