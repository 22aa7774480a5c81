package dev.loompool.jdbc.internal;

import dev.loompool.jdbc.internal.physical.ConnectionFactory;
import dev.loompool.jdbc.internal.physical.JdbcPool;
import dev.loompool.jdbc.internal.physical.Replicas;
import dev.loompool.jdbc.internal.driver.Attr;
import dev.loompool.jdbc.internal.driver.JdbcUrls;
import dev.loompool.jdbc.internal.driver.Secrets;
import dev.loompool.jdbc.internal.driver.Settings;
import dev.loompool.jdbc.internal.sql.SqlClassifier;
import dev.loompool.jdbc.internal.sql.SqlDialect;
import dev.loompool.PoolClock;
import dev.loompool.PoolListener;
import dev.loompool.jdbc.Credentials;
import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.ServerPooler;
import java.lang.reflect.InvocationTargetException;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * Turns a configured {@link LoomPoolDataSource} into a running {@link JdbcPool}: checks every
 * setting, naming the one that is wrong and what it may be, finds the driver, and pre-warms.
 */
final class Startup {

    private Startup() {
    }

    /** Fails with the passwords of the URL, the properties and setPassword masked out of every message. */
    static JdbcPool start(LoomPoolDataSource ds, PoolClock clock, List<PoolListener> listeners,
            IntFunction<List<PoolListener>> replicaListeners) throws SQLException {
        try {
            return check(ds, clock, listeners, replicaListeners);
        } catch (SQLException e) {
            throw Secrets.of(ds).mask(e);
        } catch (RuntimeException e) {
            throw Secrets.of(ds).mask(e);
        }
    }

    private static JdbcPool check(LoomPoolDataSource ds, PoolClock clock, List<PoolListener> listeners,
            IntFunction<List<PoolListener>> replicaListeners) throws SQLException {
        String url = ds.getJdbcUrl();
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("jdbcUrl is required (the JDBC URL of the database)");
        }
        String refusal = JdbcUrls.refusal(url);
        if (refusal != null) {
            throw new IllegalArgumentException(refusal);
        }
        if (ds.getServerPooler() == ServerPooler.PGBOUNCER_TRANSACTION) {
            TransactionPooling.checkSettings(ds, new SqlClassifier(SqlDialect.POSTGRES));
        }
        for (int i = 0; i < ds.getReplicas().size(); i++) {
            String refused = JdbcUrls.refusal(ds.getReplicas().get(i));
            if (refused != null) {
                throw new IllegalArgumentException("replicas[" + i + "]: " + refused);
            }
        }
        JdbcPool primary = new JdbcPool(ds, factory(ds, url, clock, new SqlClassifier(SqlDialect.OTHER)), clock,
                listeners, ds.getPoolName(), ds.getMinSize(), ds.getMaxSize(), null, Reclaimer::new);
        if (ds.getReplicas().isEmpty()) {
            return primary;
        }
        List<JdbcPool> replicas = new ArrayList<>();
        try {
            int min = ds.getReplicaMinSize() != null ? ds.getReplicaMinSize() : ds.getMinSize();
            int max = ds.getReplicaMaxSize() != null ? ds.getReplicaMaxSize() : ds.getMaxSize();
            for (int i = 0; i < ds.getReplicas().size(); i++) {
                String replicaUrl = ds.getReplicas().get(i);
                // the primary's classifier: statements are classified with it wherever they run, and
                // a replica's returns refresh its table as the primary's do
                replicas.add(new JdbcPool(ds, factory(ds, replicaUrl, clock, primary.classifier), clock, replicaListeners.apply(i),
                        ds.getPoolName() + "-replica-" + (i + 1), min, max, primary, Reclaimer::new));
            }
        } catch (SQLException | RuntimeException e) {
            replicas.forEach(JdbcPool::close);
            primary.close();
            throw e;
        }
        primary.replicas = new Replicas(replicas, ds.isReplicaFallbackToPrimary());
        return primary;
    }

    /** Connects to {@code url} (the primary's, or a replica's) with the data source's driver, credentials and properties. */
    private static ConnectionFactory factory(LoomPoolDataSource ds, String url, PoolClock clock, SqlClassifier classifier)
            throws SQLException {
        Properties properties = JdbcUrls.withTimeouts(url, ds.getDataSourceProperties(), ds.getAcquireTimeout());
        if (ds.getServerPooler() == ServerPooler.PGBOUNCER_TRANSACTION) {
            properties = TransactionPooling.withUnnamedStatements(url, properties);
        }
        return new ConnectionFactory(ds.getPoolName(), driver(ds.getDriverClassName(), url), url, properties, credentials(ds),
                configuredDefaults(ds), ds.getConnectionInitSql(), ds.getMaxLifetime().toNanos(), clock, classifier,
                ds.getServerPooler() == ServerPooler.PGBOUNCER_TRANSACTION);
    }

    /** The credentials supplier: the configured one, asked at every connect, or the fixed username and password. */
    private static Supplier<Credentials> credentials(LoomPoolDataSource ds) {
        Supplier<Credentials> supplier = ds.getCredentialsSupplier();
        if (supplier != null) {
            return supplier;
        }
        Credentials fixed = new Credentials(ds.getUsername(), ds.getPassword());
        return () -> fixed;
    }

    private static Settings configuredDefaults(LoomPoolDataSource ds) {
        Settings s = new Settings();
        if (ds.getAutoCommit() != null) {
            s.autoCommit = ds.getAutoCommit();
            s.marked.add(Attr.AUTO_COMMIT);
        }
        if (ds.getTransactionIsolation() != null) {
            s.isolation = isolation(ds.getTransactionIsolation());
            s.marked.add(Attr.ISOLATION);
        }
        if (ds.getReadOnly() != null) {
            s.readOnly = ds.getReadOnly();
            s.marked.add(Attr.READ_ONLY);
        }
        if (ds.getCatalog() != null) {
            s.catalog = ds.getCatalog();
            s.marked.add(Attr.CATALOG);
        }
        if (ds.getSchema() != null) {
            s.schema = ds.getSchema();
            s.marked.add(Attr.SCHEMA);
        }
        return s;
    }

    static int isolation(String name) {
        return Settings.isolationLevel(name);
    }

    private static Driver driver(String className, String url) throws SQLException {
        if (className == null || className.isBlank()) {
            try {
                return DriverManager.getDriver(url);
            } catch (SQLException e) {
                throw new SQLException("no JDBC driver on the class path accepts jdbcUrl " + JdbcUrls.redact(url)
                        + "; add the driver, or set driverClassName", "08001", e);
            }
        }
        Class<?> type = load(className);
        if (!Driver.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException("driverClassName " + className + " is not a java.sql.Driver");
        }
        try {
            Driver driver = (Driver) type.getDeclaredConstructor().newInstance();
            if (!driver.acceptsURL(url)) {
                throw new IllegalArgumentException("driverClassName " + className + " does not accept jdbcUrl "
                        + JdbcUrls.redact(url));
            }
            return driver;
        } catch (InstantiationException | IllegalAccessException | NoSuchMethodException | InvocationTargetException e) {
            throw new IllegalArgumentException("driverClassName " + className + " cannot be instantiated", e);
        }
    }

    private static Class<?> load(String className) {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        try {
            return Class.forName(className, true, context != null ? context : Startup.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            try {
                return Class.forName(className, true, Startup.class.getClassLoader());
            } catch (ClassNotFoundException again) {
                throw new IllegalArgumentException("driverClassName " + className + " is not on the class path", again);
            }
        }
    }
}
