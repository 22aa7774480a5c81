package dev.loompool.jdbc.internal.lifecycle;

import dev.loompool.jdbc.BindObserver;
import dev.loompool.jdbc.Credentials;
import dev.loompool.jdbc.ReleaseMode;
import dev.loompool.jdbc.ServerPooler;
import dev.loompool.jdbc.internal.driver.Settings;
import dev.loompool.jdbc.internal.handle.TransactionPooling;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.function.Supplier;

/**
 * The JDBC engine's settings, read once from the JavaBean at start and validated here: the engine
 * works from this record only, never from the live data source (STYLE.md, "Configuration is read
 * once"). What may change while the pool runs is {@link Limits}, through {@link StartedPool#change};
 * the rest is fixed for the pool's life.
 *
 * <p>Every check that needs only the settings is here and names the key and what it may be; what
 * needs the class path or the URL's meaning (the driver, a driver-side pool, PgBouncer's rules) is
 * checked by the start. {@link #toString()} never shows a password.
 *
 * @param replicaMinSize each replica's minSize, or null to follow the primary's (clamped to replicaMaxSize)
 * @param replicaMaxSize each replica's maxSize, or null to follow the primary's
 */
public record PoolConfig(
        String poolName,
        String jdbcUrl,
        String driverClassName,
        Properties dataSourceProperties,
        String username,
        String password,
        Supplier<Credentials> credentialsSupplier,
        String connectionInitSql,
        Limits limits,
        Duration healthcheckInterval,
        boolean reclaimOnOwnerExit,
        ReleaseMode releaseMode,
        ServerPooler serverPooler,
        List<String> replicas,
        Integer replicaMinSize,
        Integer replicaMaxSize,
        boolean replicaFallbackToPrimary,
        Boolean autoCommit,
        String transactionIsolation,
        Boolean readOnly,
        String catalog,
        String schema,
        int circuitBreakerFailureThreshold,
        Duration circuitBreakerOpenDuration,
        Duration initializationFailTimeout,
        Duration pinWarningThreshold,
        BindObserver bindObserver) implements TransactionPooling.StartSettings {

    public PoolConfig {
        if (poolName == null || poolName.isBlank()) {
            throw new IllegalArgumentException("poolName must not be blank, was " + (poolName == null ? "null" : "blank"));
        }
        if (jdbcUrl == null || jdbcUrl.isBlank()) {
            throw new IllegalArgumentException("jdbcUrl is required (the JDBC URL of the database)");
        }
        dataSourceProperties = copy(dataSourceProperties);
        if (limits == null) {
            throw new IllegalArgumentException("limits are required");
        }
        nonNegative("healthcheckInterval", healthcheckInterval);
        present("releaseMode", releaseMode);
        present("serverPooler", serverPooler);
        replicas = replicas == null ? List.of() : List.copyOf(replicas);
        for (int i = 0; i < replicas.size(); i++) {
            if (replicas.get(i).isBlank()) {
                throw new IllegalArgumentException("replicas[" + i + "] must be a JDBC URL, was blank");
            }
        }
        if (replicaMinSize != null) {
            atLeast("replicaMinSize", 0, replicaMinSize);
        }
        if (replicaMaxSize != null) {
            atLeast("replicaMaxSize", 1, replicaMaxSize);
        }
        if (replicaMinSize != null && replicaMaxSize != null && replicaMinSize > replicaMaxSize) {
            throw new IllegalArgumentException("replicaMinSize must be <= replicaMaxSize, was replicaMinSize="
                    + replicaMinSize + ", replicaMaxSize=" + replicaMaxSize);
        }
        if (replicaMinSize != null && replicaMaxSize == null && replicaMinSize > limits.maxSize()) {
            throw new IllegalArgumentException("replicaMinSize must be <= replicaMaxSize (maxSize unless set), was "
                    + "replicaMinSize=" + replicaMinSize + ", maxSize=" + limits.maxSize());
        }
        if (transactionIsolation != null) {
            Settings.isolationLevel(transactionIsolation); // refuses an unknown level, naming the allowed ones
        }
        atLeast("circuitBreakerFailureThreshold", 0, circuitBreakerFailureThreshold);
        nonNegative("circuitBreakerOpenDuration", circuitBreakerOpenDuration);
        present("initializationFailTimeout", initializationFailTimeout); // negative: never fail the start
        nonNegative("pinWarningThreshold", pinWarningThreshold);
    }

    /** A copy: drivers mutate what they are given, and the caller's may change after the start. */
    @Override
    public Properties dataSourceProperties() {
        return copy(dataSourceProperties);
    }

    /** The credentials asked at every connect: the supplier (rotation), or the fixed username and password. */
    public Supplier<Credentials> credentials() {
        if (credentialsSupplier != null) {
            return credentialsSupplier;
        }
        Credentials fixed = new Credentials(username, password);
        return () -> fixed;
    }

    /** The replicas' minSize under {@code l}: replicaMinSize, else the primary's clamped to the replicas' maxSize. */
    public int replicaMinSize(Limits l) {
        return replicaMinSize != null ? replicaMinSize : Math.min(l.minSize(), replicaMaxSize(l));
    }

    /** The replicas' maxSize under {@code l}: replicaMaxSize, else the primary's. */
    public int replicaMaxSize(Limits l) {
        return replicaMaxSize != null ? replicaMaxSize : l.maxSize();
    }

    /** Without a password: the URL's, the replicas', the properties' and setPassword's are masked. */
    @Override
    public String toString() {
        return "PoolConfig[" + poolName + ", " + masked(jdbcUrl) + ", username=" + username
                + ", password=" + (password == null ? "null" : "****")
                + (credentialsSupplier == null ? "" : ", credentials supplier")
                + ", dataSourceProperties=" + dataSourceProperties.stringPropertyNames()
                + ", " + limits + ", releaseMode=" + releaseMode + ", serverPooler=" + serverPooler
                + ", replicas=" + replicas.stream().map(this::masked).toList() + "]";
    }

    /** {@code url} (the primary's or a replica's) with every password these settings know masked. */
    public String masked(String url) {
        return StartedPool.maskedUrl(url, jdbcUrl, replicas, dataSourceProperties, password);
    }

    private static Properties copy(Properties properties) {
        Properties copy = new Properties();
        if (properties != null) {
            copy.putAll(properties);
        }
        return copy;
    }

    static int atLeast(String setting, int min, int value) {
        if (value < min) {
            throw new IllegalArgumentException(setting + " must be >= " + min + ", was " + value);
        }
        return value;
    }

    static void nonNegative(String setting, Duration value) {
        if (value == null || value.isNegative()) {
            throw new IllegalArgumentException(setting + " must be a duration of zero or more, was " + value);
        }
    }

    private static void present(String setting, Object value) {
        if (value == null) {
            throw new IllegalArgumentException(setting + " must be set, was null");
        }
    }

    /**
     * The settings that may change while the pool runs, as HikariCP's {@code HikariConfigMXBean}
     * allows: the sizes and the timeouts. Validated as a whole, so that no change leaves minSize
     * above maxSize; {@link StartedPool#change} applies them to the running pools.
     *
     * @param maxLifetime applies to connections opened after a change; open ones keep theirs
     */
    public record Limits(int minSize, int maxSize, Duration acquireTimeout, Duration leakDetectionThreshold,
            Duration validationTimeout, Duration idleTimeout, Duration maxLifetime) {

        public Limits {
            atLeast("minSize", 0, minSize);
            atLeast("maxSize", 1, maxSize);
            if (minSize > maxSize) {
                throw new IllegalArgumentException("minSize must be <= maxSize, was minSize=" + minSize + ", maxSize="
                        + maxSize + "; lower minSize or raise maxSize (an unset minSize follows maxSize down)");
            }
            nonNegative("acquireTimeout", acquireTimeout);
            nonNegative("leakDetectionThreshold", leakDetectionThreshold);
            nonNegative("validationTimeout", validationTimeout);
            nonNegative("idleTimeout", idleTimeout);
            nonNegative("maxLifetime", maxLifetime);
        }

        public Limits withSizes(int min, int max) {
            return new Limits(min, max, acquireTimeout, leakDetectionThreshold, validationTimeout, idleTimeout, maxLifetime);
        }

        public Limits withAcquireTimeout(Duration d) {
            return new Limits(minSize, maxSize, d, leakDetectionThreshold, validationTimeout, idleTimeout, maxLifetime);
        }

        public Limits withLeakDetectionThreshold(Duration d) {
            return new Limits(minSize, maxSize, acquireTimeout, d, validationTimeout, idleTimeout, maxLifetime);
        }

        public Limits withValidationTimeout(Duration d) {
            return new Limits(minSize, maxSize, acquireTimeout, leakDetectionThreshold, d, idleTimeout, maxLifetime);
        }

        public Limits withIdleTimeout(Duration d) {
            return new Limits(minSize, maxSize, acquireTimeout, leakDetectionThreshold, validationTimeout, d, maxLifetime);
        }

        public Limits withMaxLifetime(Duration d) {
            return new Limits(minSize, maxSize, acquireTimeout, leakDetectionThreshold, validationTimeout, idleTimeout, d);
        }
    }
}
