package dev.loompool.jdbc.internal.lifecycle;

import dev.loompool.jdbc.internal.handle.TransactionPooling;
import dev.loompool.jdbc.internal.physical.ConnectionFactory;
import dev.loompool.jdbc.internal.physical.JdbcPool;
import dev.loompool.jdbc.internal.physical.JdbcPoolSettings;
import dev.loompool.jdbc.internal.physical.Replicas;
import dev.loompool.jdbc.internal.driver.SessionAttribute;
import dev.loompool.jdbc.internal.driver.JdbcUrls;
import dev.loompool.jdbc.internal.driver.Secrets;
import dev.loompool.jdbc.internal.driver.Settings;
import dev.loompool.jdbc.internal.sql.SqlClassifier;
import dev.loompool.jdbc.internal.sql.SqlDialect;
import dev.loompool.PoolClock;
import dev.loompool.PoolListener;
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
import java.util.function.BooleanSupplier;

/**
 * Turns the frozen settings ({@link PoolConfig}, validated when it was made) into a running
 * {@link JdbcPool}: checks what needs the URL's meaning or the class path, naming the setting that
 * is wrong and what it may be, finds the driver, and pre-warms.
 */
final class Startup {

    private Startup() {
    }

    /** Fails with the passwords of the URL, the properties and setPassword masked out of every message. */
    static JdbcPool start(PoolConfig config, PoolClock clock, List<PoolListener> listeners,
            IntFunction<List<PoolListener>> replicaListeners, BooleanSupplier closing)
            throws SQLException {
        try {
            return check(config, clock, listeners, replicaListeners, closing);
        } catch (SQLException e) {
            throw secrets(config).mask(e);
        } catch (RuntimeException e) {
            throw secrets(config).mask(e);
        }
    }

    static Secrets secrets(PoolConfig config) {
        return Secrets.of(config.jdbcUrl(), config.dataSourceProperties(), config.password(), config.replicas());
    }

    private static JdbcPool check(PoolConfig config, PoolClock clock, List<PoolListener> listeners,
            IntFunction<List<PoolListener>> replicaListeners, BooleanSupplier closing)
            throws SQLException {
        String url = config.jdbcUrl();
        String refusal = JdbcUrls.refusal(url);
        if (refusal != null) {
            throw new IllegalArgumentException(refusal);
        }
        if (config.serverPooler() == ServerPooler.PGBOUNCER_TRANSACTION) {
            TransactionPooling.checkSettings(config, new SqlClassifier(SqlDialect.POSTGRES));
        }
        for (int i = 0; i < config.replicas().size(); i++) {
            String refused = JdbcUrls.refusal(config.replicas().get(i));
            if (refused != null) {
                throw new IllegalArgumentException("replicas[" + i + "]: " + refused);
            }
        }
        PoolConfig.Limits limits = config.limits();
        JdbcPool primary = new JdbcPool(settings(config, config.poolName(), limits.minSize(), limits.maxSize(), closing),
                factory(config, url, clock, new SqlClassifier(SqlDialect.OTHER)), clock, listeners, null,
                Reclaimer::new);
        if (config.replicas().isEmpty()) {
            return primary;
        }
        List<JdbcPool> replicas = new ArrayList<>();
        try {
            int min = config.replicaMinSize(limits);
            int max = config.replicaMaxSize(limits);
            for (int i = 0; i < config.replicas().size(); i++) {
                String replicaUrl = config.replicas().get(i);
                // the primary's classifier: statements are classified with it wherever they run, and
                // a replica's returns refresh its table as the primary's do
                replicas.add(new JdbcPool(settings(config, config.poolName() + "-replica-" + (i + 1), min, max, closing),
                        factory(config, replicaUrl, clock, primary.factory.classifier()), clock, replicaListeners.apply(i),
                        primary, Reclaimer::new));
            }
        } catch (SQLException | RuntimeException e) {
            replicas.forEach(JdbcPool::close);
            primary.close();
            throw e;
        }
        primary.attachReplicas(new Replicas(replicas, config.replicaFallbackToPrimary()));
        return primary;
    }

    /** What one pool (the primary's, or a replica's) of {@code config} is made with. */
    private static JdbcPoolSettings settings(PoolConfig config, String name, int minSize, int maxSize,
            BooleanSupplier closing) {
        PoolConfig.Limits l = config.limits();
        return new JdbcPoolSettings(name, minSize, maxSize, l.acquireTimeout(), config.healthcheckInterval(),
                l.idleTimeout(), l.validationTimeout(), l.leakDetectionThreshold(), config.pinWarningThreshold(),
                config.initializationFailTimeout(), config.releaseMode(), config.bindObserver(),
                config.reclaimOnOwnerExit(), config.serverPooler() == ServerPooler.PGBOUNCER_TRANSACTION,
                Boolean.TRUE.equals(config.readOnly()), config.circuitBreakerFailureThreshold(),
                config.circuitBreakerOpenDuration(), closing);
    }

    /** Connects to {@code url} (the primary's, or a replica's) with the configured driver, credentials and properties. */
    private static ConnectionFactory factory(PoolConfig config, String url, PoolClock clock, SqlClassifier classifier)
            throws SQLException {
        Properties properties = JdbcUrls.withTimeouts(url, config.dataSourceProperties(), config.limits().acquireTimeout());
        if (config.serverPooler() == ServerPooler.PGBOUNCER_TRANSACTION) {
            properties = TransactionPooling.withUnnamedStatements(url, properties);
        }
        return new ConnectionFactory(config.poolName(), driver(config.driverClassName(), url), url, properties,
                config.credentials(), configuredDefaults(config), config.connectionInitSql(),
                JdbcPool.nanos(config.limits().maxLifetime()), clock, classifier,
                config.serverPooler() == ServerPooler.PGBOUNCER_TRANSACTION);
    }

    private static Settings configuredDefaults(PoolConfig config) {
        Settings s = new Settings();
        if (config.autoCommit() != null) {
            s.chooseAutoCommit(config.autoCommit());
            s.marked.add(SessionAttribute.AUTO_COMMIT);
        }
        if (config.transactionIsolation() != null) {
            s.chooseIsolation(isolation(config.transactionIsolation()));
            s.marked.add(SessionAttribute.ISOLATION);
        }
        if (config.readOnly() != null) {
            s.chooseReadOnly(config.readOnly());
            s.marked.add(SessionAttribute.READ_ONLY);
        }
        if (config.catalog() != null) {
            s.chooseCatalog(config.catalog());
            s.marked.add(SessionAttribute.CATALOG);
        }
        if (config.schema() != null) {
            s.chooseSchema(config.schema());
            s.marked.add(SessionAttribute.SCHEMA);
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
