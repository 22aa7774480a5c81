package dev.loompool.jdbc.internal.physical;

import dev.loompool.jdbc.internal.driver.SessionAttribute;
import dev.loompool.jdbc.internal.driver.FunctionCatalog;
import dev.loompool.jdbc.internal.driver.JdbcUrls;
import dev.loompool.jdbc.internal.driver.Secrets;
import dev.loompool.jdbc.internal.driver.SessionProbe;
import dev.loompool.jdbc.internal.driver.SessionReset;
import dev.loompool.jdbc.internal.driver.Settings;
import dev.loompool.jdbc.internal.driver.WireState;
import dev.loompool.jdbc.internal.sql.SqlClassifier;
import dev.loompool.jdbc.internal.sql.SqlDialect;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.loompool.PoolClock;
import dev.loompool.jdbc.Credentials;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Driver;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumSet;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * Opens and initialises physical connections. The properties and credentials are copied for every
 * {@code Driver.connect}, because drivers mutate what they are given, and the credentials are
 * asked for every time, so that a rotated password takes effect on the next connection.
 */
public final class ConnectionFactory {

    private static final Logger log = LoggerFactory.getLogger(ConnectionFactory.class);

    private final String poolName;
    private final Driver driver;
    private final String url;
    private final Properties properties;
    private final Supplier<Credentials> credentials;
    /** The defaults the user configured; {@code marked} says which. */
    private final Settings configured;
    private final String initSql;
    /** Behind a pooler in transaction mode: the default isolation is the one sessions reset to (Settings.resetIsolation). */
    private final boolean behindPooler;
    /** Read at every connect: a change at run time (JdbcPool.change) applies to the connections opened after it. */
    private volatile long maxLifetimeNanos;
    private final PoolClock clock;
    private volatile Settings learned;
    private volatile SessionReset sessionReset = SessionReset.NONE;
    /** The primary's, shared by the replicas' factories. */
    private final SqlClassifier classifier;
    private volatile WireState wire = WireState.UNREADABLE;
    private volatile Class<?> wireClass;
    /** The passwords in the URL and the properties, found once. */
    private final Secrets configuredSecrets;
    /** The credentials of the last connect, whose password a later failure may show. */
    private volatile Credentials lastCredentials;

    public ConnectionFactory(String poolName, Driver driver, String url, Properties properties, Supplier<Credentials> credentials,
            Settings configured, String initSql, long maxLifetimeNanos, PoolClock clock, SqlClassifier classifier,
            boolean behindPooler) {
        this.behindPooler = behindPooler;
        this.classifier = classifier;
        this.poolName = poolName;
        this.driver = driver;
        this.url = url;
        this.properties = JdbcUrls.withSessionReset(url, properties);
        this.configuredSecrets = Secrets.of(url, this.properties, null);
        this.credentials = credentials;
        this.configured = configured;
        this.initSql = initSql;
        this.maxLifetimeNanos = maxLifetimeNanos;
        this.clock = clock;
    }

    void maxLifetime(long nanos) {
        this.maxLifetimeNanos = nanos;
    }

    /**
     * A new physical connection. Whatever fails here reaches the generic pool, its logs, its
     * listeners and the caller only with the passwords masked out (see {@link Secrets}).
     */
    PhysicalConnection create() throws SQLException {
        Credentials c = null;
        try {
            c = credentials.get();
            lastCredentials = c;
            return open(c);
        } catch (SQLException e) {
            throw secrets(c).mask(e);
        } catch (RuntimeException e) {
            throw secrets(c).mask(e);
        } catch (Error e) {
            throw secrets(c).mask(e);
        }
    }

    private PhysicalConnection open(Credentials c) throws SQLException {
        Properties props = new Properties();
        props.putAll(properties);
        if (c != null && c.username() != null) {
            props.setProperty("user", c.username());
        }
        if (c != null && c.password() != null) {
            props.setProperty("password", c.password());
        }
        Connection raw = driver.connect(url, props);
        if (raw == null) {
            throw new SQLException("driver " + driver.getClass().getName() + " does not accept jdbcUrl "
                    + JdbcUrls.redact(url), "08001");
        }
        try {
            // learned before anything is set on it: the session as the driver left it
            Settings defaults = initialize(raw, learned == null ? learn(raw) : null);
            long now = clock.nanoTime();
            return new PhysicalConnection(raw, wireState(raw), defaults, now, expiry(now));
        } catch (SQLException | RuntimeException e) {
            try {
                raw.close();
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** The secrets to mask out of a failure: the URL's, the properties', and the password last connected with. */
    public Secrets secrets() {
        return secrets(null);
    }

    private Secrets secrets(Credentials c) {
        Credentials used = c != null ? c : lastCredentials;
        return configuredSecrets.with(used == null ? null : used.password());
    }

    /** Applies the configured defaults and the init SQL; returns the settings the connection then has. */
    Settings initialize(Connection raw) throws SQLException {
        return initialize(raw, null);
    }

    /**
     * {@link #initialize(Connection)}, or on the pool's first connection with nothing to apply,
     * the settings {@link #learn} read already ({@code read}).
     */
    private Settings initialize(Connection raw, Settings read) throws SQLException {
        Settings defaults = read;
        if (defaults == null) {
            boolean init = initSql != null && !initSql.isBlank();
            // set in the query that reads the settings, where the driver allows (the init SQL runs after the defaults)
            EnumSet<SessionAttribute> folded = init ? EnumSet.noneOf(SessionAttribute.class)
                    : SessionProbe.foldable(raw, configured);
            for (SessionAttribute a : configured.marked) {
                if (!folded.contains(a)) {
                    configured.applyTo(raw, a);
                }
            }
            if (init) {
                try (Statement st = raw.createStatement()) {
                    st.execute(initSql);
                }
            }
            defaults = SessionProbe.settings(raw, configured, folded);
            if (init) { // its USE is seen by the server only, not by MySQL Connector/J's getCatalog(): a reset goes back to it
                defaults.chooseCatalog(sessionReset.database(raw, defaults.catalog()));
            }
            if (behindPooler) {
                defaults.chooseIsolation(Settings.resetIsolation(raw));
            }
        }
        if (!defaults.autoCommit()) {
            raw.commit(); // the init SQL, or a read, must not leave a transaction open for the first borrower
        }
        if (learned == null) {
            learned = defaults;
        }
        return defaults;
    }

    /**
     * From the first connection, fresh from the driver: the database's dialect, how to reset its
     * sessions, and what the driver set on the session that a reset must put back. In one query
     * where it can be ({@link SessionProbe}), which reads the connection's settings too when the
     * pool sets nothing on it: those are returned, else null. The catalog of functions, views and
     * operators is read too, before the connection is handed out, so that no statement is ever
     * classified without it: in the same round trip where the driver allows (pgjdbc, MariaDB's),
     * else right after. A replica's first connection finds it read already (the classifier is shared).
     */
    private Settings learn(Connection raw) throws SQLException {
        String product = raw.getMetaData().getDatabaseProductName();
        SqlDialect dialect = SqlDialect.of(product);
        classifier.useDialect(dialect);
        boolean untouched = configured.marked.isEmpty() && (initSql == null || initSql.isBlank()) && !behindPooler;
        boolean catalogNow = classifier.needsCatalog();
        // first: the driver's caches are read as a fresh connection has them (pgjdbc's type names)
        SessionProbe.Learned learnedHere = SessionProbe.learn(raw, product, JdbcUrls.driverResetsSessions(url, properties),
                untouched, catalogNow);
        sessionReset = learnedHere.reset();
        if (catalogNow && learnedHere.functions() != null) {
            classifier.useFunctions(learnedHere.functions(), clock.nanoTime()); // read in the probe's round trip
        } else if (catalogNow) {
            readCatalog(raw, dialect);
        }
        return learnedHere.settings();
    }

    /** The table read now, on {@code raw}: the built-in one, or the catalog's behind a pooler. */
    private void readCatalog(Connection raw, SqlDialect dialect) {
        try {
            classifier.useFunctions(FunctionCatalog.read(raw, dialect), clock.nanoTime());
        } catch (SQLException e) {
            // The pool starts all the same: with nothing known, every statement pins until a read succeeds.
            log.warn("pool '{}': could not read the database's catalog of functions and views; every statement keeps "
                    + "its connection, as session state, until it is read (at the next connection's return): "
                    + "SQLState {}: {}", poolName, e.getSQLState(), secrets().mask(JdbcUrls.redact(e.getMessage())));
            classifier.catalogReadFailed(clock.nanoTime());
        }
    }

    /** How to read the transaction state: found once per driver class, which every connection shares. */
    private WireState wireState(Connection raw) {
        if (wireClass != raw.getClass()) {
            wire = WireState.of(raw);
            wireClass = raw.getClass();
            if (!wire.readable()) {
                announcePinning(raw);
            }
        }
        return wire;
    }

    /**
     * Says once per driver class that the pool cannot read the transaction state from this driver
     * (an old MariaDB Connector/J, H2, …), so that a user who sees fewer connections shared than
     * expected knows why and which driver to upgrade: the pin alone then decides (DESIGN.md §4).
     */
    private void announcePinning(Connection raw) {
        String driverName;
        try {
            DatabaseMetaData md = raw.getMetaData();
            driverName = md.getDriverName() + " " + md.getDriverVersion();
        } catch (SQLException | RuntimeException e) {
            driverName = driver.getClass().getName() + " " + driver.getMajorVersion() + "." + driver.getMinorVersion();
        }
        log.info("pool '{}': the driver {} does not show the server's transaction state; the pool falls back to "
                + "pinning: a connection stays with its handle from any statement or call that may begin a transaction "
                + "until one ends it, and is rolled back before reuse; a driver that shows it shares connections more "
                + "often", poolName, driverName);
    }

    /** Max lifetime minus up to 2.5 % jitter, so that connections made together do not all retire together. */
    private long expiry(long now) {
        long lifetime = maxLifetimeNanos;
        if (lifetime <= 0) {
            return Long.MAX_VALUE;
        }
        long jitter = lifetime > 40 ? ThreadLocalRandom.current().nextLong(lifetime / 40) : 0;
        return now + lifetime - jitter;
    }

    /** The defaults of the first connection made, or null before any. */
    public Settings learnedDefaults() {
        return learned;
    }

    SessionReset sessionReset() {
        return sessionReset;
    }

    /** The URL it connects to: the primary's, or a replica's. */
    String url() {
        return url;
    }

    /** The classifier, shared with the replicas' factories. */
    public SqlClassifier classifier() {
        return classifier;
    }
}
