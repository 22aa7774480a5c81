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
    /** The restore has not run yet anywhere: a refusal then says the server refuses it, not that one connection failed. */
    private volatile boolean restoreUntried;
    /** The server refused the restore the first time it ran: sessions cannot be restored, only closed. */
    private volatile boolean restoreRefused;

    private SessionReset(String wipeSql, MethodHandle wipeMethod, String restoreSql, MethodHandle drain,
            boolean reseed, TypeNames typeNames) {
        this.wipeSql = wipeSql;
        this.wipeMethod = wipeMethod;
        this.restoreSql = restoreSql;
        this.drain = drain;
        this.reseed = reseed;
        this.typeNames = typeNames;
    }

    /** One whose restore was not tried on the fresh session: the first reset tries it. */
    private SessionReset untried() {
        restoreUntried = restoreSql != null;
        return this;
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
            return postgres(raw, TypeNames.of(raw)); // first: before a query of ours could add to them
        }
        boolean maria = product.contains("MariaDB");
        if ((maria || product.contains("MySQL")) && driverResets) {
            MethodHandle wipe = byMethod(raw, maria ? "reset" : "resetServerState");
            String restore = maria ? MysqlRestore.withIsolationTold(raw, MysqlRestore.of(raw)) : MysqlRestore.of(raw);
            return wipe == null ? NONE : new SessionReset(null, wipe, restorable(raw, restore), null, false, TypeNames.NONE);
        }
        return NONE;
    }

    /** PostgreSQL's, asked a round trip at a time; {@code names} read before any query of ours. */
    static SessionReset postgres(Connection raw, TypeNames names) throws SQLException {
        Map<String, String> set = read(raw, "SELECT name, current_setting(name) FROM pg_settings WHERE source = 'session'");
        return postgres(raw, names, set, false, reseeds(raw));
    }

    /**
     * PostgreSQL's: {@code set} the settings the driver set on the session (by {@code source =
     * 'session'}), which the restore puts back; {@code restoreTried} if they were set again already
     * on this fresh session without a refusal ({@link SessionProbe} does so in the query that read
     * them), else the restore is tried here.
     */
    static SessionReset postgres(Connection raw, TypeNames names, Map<String, String> set, boolean restoreTried,
            boolean reseeds) throws SQLException {
        if (names.driverKeepsNames() && !names.restorable()) {
            log.warn("the driver's cache of type names cannot be cleared on this driver version: a connection whose "
                    + "session changed the search path is closed on return instead of reset");
        }
        List<String> calls = new ArrayList<>();
        set.forEach((name, value) -> calls.add("set_config(" + literal(name, false) + ", " + literal(value, false) + ", false)"));
        String restore = calls.isEmpty() ? null : "SELECT " + String.join(", ", calls);
        return new SessionReset("DISCARD ALL", null, restoreTried ? restore : restorable(raw, restore), drain(raw),
                reseeds, names);
    }

    /**
     * MariaDB Connector/J's, from what {@link SessionProbe} read in one query: the session's
     * variables that differ from the global ones ({@code differ}) and the variables the session
     * tracks ({@code tracked}, a list). The restore is not tried on the
     * fresh session, which would cost a round trip per connect: the first reset that runs it tries
     * it, and if the server refuses it that connection is closed and so are the next ones with
     * session state ({@link #supported}).
     */
    static SessionReset mariadb(Connection raw, Map<String, String> differ, String tracked) {
        MethodHandle wipe = byMethod(raw, "reset");
        if (wipe == null) {
            return NONE;
        }
        String restore = MysqlRestore.told(MysqlRestore.of(raw, differ), tracked);
        return new SessionReset(null, wipe, restore, null, false, TypeNames.NONE).untried();
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
            warnUnrestorable(e);
            return UNRESTORABLE;
        }
    }

    private static final String UNRESTORABLE = "";

    private static void warnUnrestorable(SQLException e) {
        log.warn("the session the driver sets up cannot be restored after a reset (SQLState {}); connections "
                + "with session state will be closed instead of reset", e.getSQLState());
    }

    static Map<String, String> read(Connection raw, String sql) throws SQLException {
        Map<String, String> values = new LinkedHashMap<>();
        try (Statement st = raw.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                values.put(rs.getString(1), rs.getString(2));
            }
        }
        return values;
    }

    /** A string literal; MySQL reads backslashes in it as escapes, PostgreSQL (standard strings) does not. */
    static String literal(String value, boolean backslashEscapes) {
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
        return "SELECT " + seedCall();
    }

    /** A call of setseed with a seed from the JVM, which no borrower sees: see {@link #reseedSql}. */
    static String seedCall() {
        return "pg_catalog.setseed(" + ThreadLocalRandom.current().nextDouble(-1, 1) + "::float8)";
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
        return (wipeSql != null || wipeMethod != null) && restoreSql != UNRESTORABLE && !restoreRefused;
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
        // PostgreSQL's restore is a SELECT of set_config calls: the reseed goes in it, one round trip for both
        boolean seedInRestore = reseed && restoreSql != null && restoreSql.startsWith("SELECT ");
        if (restoreSql != null) {
            String sql = seedInRestore ? restoreSql + ", " + seedCall() : restoreSql;
            try (Statement st = raw.createStatement()) {
                st.execute(sql);
            } catch (SQLException e) {
                if (restoreUntried && !BrokenConnections.isBroken(e)) { // this connection goes; the next ones are closed
                    restoreRefused = true;
                    warnUnrestorable(e);
                }
                throw e;
            }
            restoreUntried = false;
        }
        if (reseed && !seedInRestore) {
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
