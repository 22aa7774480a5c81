package dev.loompool.jdbc.internal.driver;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Values of the {@link SessionAttribute} settings: a handle's own, a physical connection's current ones, or
 * the defaults a returned connection is reset to.
 */
public final class Settings {

    private boolean autoCommit = true;
    private int isolation = Connection.TRANSACTION_READ_COMMITTED;
    private boolean readOnly;
    private String catalog;
    private String schema;
    private int holdability;
    private int networkTimeout;
    private Executor networkExecutor;
    /** Which values were set on purpose (for a handle) or differ from the defaults (for a connection). */
    public final EnumSet<SessionAttribute> marked = EnumSet.noneOf(SessionAttribute.class);

    /** The settings a connection has now. */
    public static Settings read(Connection c) throws SQLException {
        Settings s = new Settings();
        s.autoCommit = c.getAutoCommit();
        s.isolation = c.getTransactionIsolation();
        s.readOnly = c.isReadOnly();
        s.catalog = c.getCatalog();
        s.schema = c.getSchema();
        s.holdability = c.getHoldability();
        s.networkTimeout = c.getNetworkTimeout();
        return s;
    }

    /**
     * As {@link #read(Connection)}, with the isolation level {@code isolationName} as the server
     * spells it, read by the caller in a query of its own; the driver's getter if it is none of the
     * four (as the driver would answer).
     */
    static Settings read(Connection c, String isolationName) throws SQLException {
        Settings s = readWith(c, isolationName);
        s.catalog = c.getCatalog();
        s.schema = c.getSchema();
        return s;
    }

    /** As {@link #read(Connection, String)}, with the catalog and the schema read by the caller too. */
    static Settings read(Connection c, String isolationName, String catalog, String schema) throws SQLException {
        Settings s = readWith(c, isolationName);
        s.catalog = catalog;
        s.schema = schema;
        return s;
    }

    /** All but the catalog and the schema, the isolation level from its name. */
    private static Settings readWith(Connection c, String isolationName) throws SQLException {
        Settings s = new Settings();
        s.autoCommit = c.getAutoCommit();
        try {
            s.isolation = isolationName != null ? isolationLevel(isolationName) : c.getTransactionIsolation();
        } catch (IllegalArgumentException e) { // none of the four names: as the driver answers it
            s.isolation = c.getTransactionIsolation();
        }
        s.readOnly = c.isReadOnly();
        s.holdability = c.getHoldability();
        s.networkTimeout = c.getNetworkTimeout();
        return s;
    }

    /**
     * PostgreSQL behind a pooler in transaction mode: the isolation level the session resets to
     * (the server's, the database's or the role's default), not the one it has now, which a client
     * of the pooler may have changed with {@code SET SESSION CHARACTERISTICS} and left there for
     * whoever gets that server connection next. pgjdbc's {@code getTransactionIsolation} reads the latter.
     */
    public static int resetIsolation(Connection c) throws SQLException {
        String v;
        try (java.sql.Statement st = c.createStatement(); java.sql.ResultSet rs = st.executeQuery(
                "SELECT reset_val FROM pg_settings WHERE name = 'default_transaction_isolation'")) {
            v = rs.next() ? rs.getString(1) : "";
        }
        try {
            return isolationLevel(v);
        } catch (IllegalArgumentException e) { // 22023 invalid_parameter_value: none of PostgreSQL's four
            throw new SQLException("default_transaction_isolation resets to '" + v + "', not a level the pool "
                    + "knows (serializable, repeatable read, read committed, read uncommitted)", "22023");
        }
    }

    /** A level by its name, as a setting or PostgreSQL spells it: {@code READ_COMMITTED}, {@code TRANSACTION_SERIALIZABLE}, {@code repeatable read}. */
    public static int isolationLevel(String name) {
        String n = name.trim().toUpperCase(Locale.ROOT).replace('-', '_').replace(' ', '_');
        if (n.startsWith("TRANSACTION_")) {
            n = n.substring("TRANSACTION_".length());
        }
        switch (n) {
            case "NONE":
                return Connection.TRANSACTION_NONE;
            case "READ_UNCOMMITTED":
                return Connection.TRANSACTION_READ_UNCOMMITTED;
            case "READ_COMMITTED":
                return Connection.TRANSACTION_READ_COMMITTED;
            case "REPEATABLE_READ":
                return Connection.TRANSACTION_REPEATABLE_READ;
            case "SERIALIZABLE":
                return Connection.TRANSACTION_SERIALIZABLE;
            default:
                throw new IllegalArgumentException("transactionIsolation must be one of READ_UNCOMMITTED, "
                        + "READ_COMMITTED, REPEATABLE_READ, SERIALIZABLE, NONE, was " + name);
        }
    }

    public boolean autoCommit() {
        return autoCommit;
    }

    public int isolation() {
        return isolation;
    }

    public boolean readOnly() {
        return readOnly;
    }

    public String catalog() {
        return catalog;
    }

    public String schema() {
        return schema;
    }

    public int holdability() {
        return holdability;
    }

    public int networkTimeout() {
        return networkTimeout;
    }

    /** The executor given with the network timeout; null for none (applied with a direct one). */
    public Executor networkExecutor() {
        return networkExecutor;
    }

    // Named changes: a value chosen (by the handle, the pool's configuration, or the session's reset
    // value); whoever chose it records it in marked when that is what the choice means.

    public void chooseAutoCommit(boolean autoCommit) {
        this.autoCommit = autoCommit;
    }

    public void chooseIsolation(int isolation) {
        this.isolation = isolation;
    }

    public void chooseReadOnly(boolean readOnly) {
        this.readOnly = readOnly;
    }

    public void chooseCatalog(String catalog) {
        this.catalog = catalog;
    }

    public void chooseSchema(String schema) {
        this.schema = schema;
    }

    public void chooseHoldability(int holdability) {
        this.holdability = holdability;
    }

    /** A network timeout of {@code milliseconds}, applied with {@code executor} (null: a direct one). */
    public void chooseNetworkTimeout(Executor executor, int milliseconds) {
        this.networkExecutor = executor;
        this.networkTimeout = milliseconds;
    }

    /** Reads attribute {@code a} from {@code c}: what the driver says now. */
    public void readFrom(Connection c, SessionAttribute a) throws SQLException {
        switch (a) {
            case AUTO_COMMIT:
                autoCommit = c.getAutoCommit();
                break;
            case ISOLATION:
                isolation = c.getTransactionIsolation();
                break;
            case READ_ONLY:
                readOnly = c.isReadOnly();
                break;
            case CATALOG:
                catalog = c.getCatalog();
                break;
            case SCHEMA:
                schema = c.getSchema();
                break;
            case HOLDABILITY:
                holdability = c.getHoldability();
                break;
            default:
                networkTimeout = c.getNetworkTimeout();
                break;
        }
    }

    public Settings copy() {
        Settings s = new Settings();
        for (SessionAttribute a : SessionAttribute.values()) {
            s.copyFrom(this, a);
        }
        return s;
    }

    public boolean same(Settings other, SessionAttribute a) {
        switch (a) {
            case AUTO_COMMIT:
                return autoCommit == other.autoCommit;
            case ISOLATION:
                return isolation == other.isolation;
            case READ_ONLY:
                return readOnly == other.readOnly;
            case CATALOG:
                return Objects.equals(catalog, other.catalog);
            case SCHEMA:
                return Objects.equals(schema, other.schema);
            case HOLDABILITY:
                return holdability == other.holdability;
            default:
                return networkTimeout == other.networkTimeout;
        }
    }

    public void copyFrom(Settings other, SessionAttribute a) {
        switch (a) {
            case AUTO_COMMIT:
                autoCommit = other.autoCommit;
                break;
            case ISOLATION:
                isolation = other.isolation;
                break;
            case READ_ONLY:
                readOnly = other.readOnly;
                break;
            case CATALOG:
                catalog = other.catalog;
                break;
            case SCHEMA:
                schema = other.schema;
                break;
            case HOLDABILITY:
                holdability = other.holdability;
                break;
            default:
                networkTimeout = other.networkTimeout;
                networkExecutor = other.networkExecutor;
                break;
        }
    }

    /** Sets attribute {@code a} of {@code c} to this value. */
    public void applyTo(Connection c, SessionAttribute a) throws SQLException {
        switch (a) {
            case AUTO_COMMIT:
                c.setAutoCommit(autoCommit);
                break;
            case ISOLATION:
                c.setTransactionIsolation(isolation);
                break;
            case READ_ONLY:
                c.setReadOnly(readOnly);
                break;
            case CATALOG:
                if (catalog != null) {
                    c.setCatalog(catalog);
                }
                break;
            case SCHEMA:
                if (schema != null) {
                    c.setSchema(schema);
                }
                break;
            case HOLDABILITY:
                c.setHoldability(holdability);
                break;
            default:
                c.setNetworkTimeout(networkExecutor != null ? networkExecutor : Runnable::run, networkTimeout);
                break;
        }
    }
}
