package dev.loompool.jdbc;

import dev.loompool.jdbc.internal.lifecycle.PoolConfig;
import dev.loompool.jdbc.internal.lifecycle.StartedPool;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.function.Supplier;

/**
 * The JavaBean configuration of {@link LoomPoolDataSource}, kept apart so that each file holds one
 * concept (as HikariCP's {@code HikariConfig} is the base of its data source); only
 * {@code LoomPoolDataSource} extends it. A value out of its range is refused by its setter with an
 * {@code IllegalArgumentException} naming the setting, as HikariCP's are, so that a binder (Spring's
 * {@code @ConfigurationProperties}) can say which key is wrong; what depends on several settings
 * (minSize against maxSize, the URL against the driver) is checked at start, when the settings are
 * read once into the record the engine works from ({@code PoolConfig}).
 *
 * <p>Once the pool has started the settings are frozen, as HikariCP's {@code HikariConfigMXBean}
 * freezes all but a few: the sizes and the timeouts (minSize, maxSize, acquireTimeout,
 * leakDetectionThreshold, validationTimeout, idleTimeout, maxLifetime) still change, each through
 * the running pool's one validated change ({@link StartedPool#change}), and every other setter
 * throws an {@code IllegalStateException}.
 */
public abstract class DataSourceSettings {

    /** minSize when it is not set, lowered to maxSize when that is smaller. */
    static final int DEFAULT_MIN_SIZE = 2;

    private String jdbcUrl;
    private String username;
    private String password;
    private String driverClassName;
    private Properties dataSourceProperties = new Properties();
    private Supplier<Credentials> credentialsSupplier;
    /** Null until set: the default, {@value #DEFAULT_MIN_SIZE}, clamped to maxSize as HikariCP clamps its minimumIdle. */
    private Integer minSize;
    private int maxSize = 10;
    private Duration acquireTimeout = Duration.ofSeconds(30);
    private Duration healthcheckInterval = Duration.ofSeconds(30);
    private Duration idleTimeout = Duration.ofMinutes(10);
    private Duration maxLifetime = Duration.ofMinutes(30);
    private Duration validationTimeout = Duration.ofSeconds(5);
    private Duration leakDetectionThreshold = Duration.ZERO;
    private boolean reclaimOnOwnerExit;
    private ReleaseMode releaseMode = ReleaseMode.STATEMENT;
    private ServerPooler serverPooler = ServerPooler.NONE;
    private List<String> replicas = List.of();
    private Integer replicaMinSize;
    private Integer replicaMaxSize;
    private boolean replicaFallbackToPrimary = true;
    private String poolName;
    private String connectionInitSql;
    private Boolean autoCommit;
    private String transactionIsolation;
    private Boolean readOnly;
    private String catalog;
    private String schema;
    private int circuitBreakerFailureThreshold = 5;
    private Duration circuitBreakerOpenDuration = Duration.ofSeconds(5);
    private Duration initializationFailTimeout = Duration.ZERO;
    private Duration pinWarningThreshold = Duration.ZERO;
    private boolean registerMbeans;

    /** Every setter takes its value through this: refused once the pool has started, or out of range. */
    final SettingsCheck check = new SettingsCheck(this::getPoolName);

    DataSourceSettings() {
    }

    /**
     * Called once the pool has started ({@code running} the started pool), or the data source was
     * closed ({@code running} null): the settings no longer change, but for the limits a started
     * pool changes through {@link StartedPool#change}.
     */
    final void freeze(StartedPool running) {
        check.freeze(running);
    }

    /**
     * The settings read once, at start, into the record the engine works from, validated there:
     * a value that depends on another (minSize against maxSize) is refused naming both.
     */
    final PoolConfig frozen(BindObserver bindObserver) {
        return new PoolConfig(getPoolName(), jdbcUrl, driverClassName, dataSourceProperties, username, password,
                credentialsSupplier, connectionInitSql, limits(), healthcheckInterval, reclaimOnOwnerExit,
                releaseMode, serverPooler, replicas, replicaMinSize, replicaMaxSize, replicaFallbackToPrimary,
                autoCommit, transactionIsolation, readOnly, catalog, schema, circuitBreakerFailureThreshold,
                circuitBreakerOpenDuration, initializationFailTimeout, pinWarningThreshold, bindObserver);
    }

    private PoolConfig.Limits limits() {
        return new PoolConfig.Limits(getMinSize(), maxSize, acquireTimeout, leakDetectionThreshold, validationTimeout,
                idleTimeout, maxLifetime);
    }

    /** The driver's JDBC URL. Required. */
    public void setJdbcUrl(String jdbcUrl) {
        this.jdbcUrl = check.beforeStart(jdbcUrl);
    }

    public String getJdbcUrl() {
        return jdbcUrl;
    }

    public void setUsername(String username) {
        this.username = check.beforeStart(username);
    }

    public String getUsername() {
        return username;
    }

    /** Never printed or logged by loompool (its {@code toString}, messages and endpoint mask it). */
    public void setPassword(String password) {
        this.password = check.beforeStart(password);
    }

    /**
     * For tools that copy a data source's settings: Spring Boot's {@code DataSourceBuilder.derivedFrom},
     * which Flyway and Liquibase use for a data source of their own, reads it. A credentials supplier
     * is not copied that way; it is asked at every connect of this pool only.
     */
    public String getPassword() {
        return password;
    }

    /** Optional: the driver is otherwise found by {@code DriverManager} from the URL. */
    public void setDriverClassName(String driverClassName) {
        this.driverClassName = check.beforeStart(driverClassName);
    }

    public String getDriverClassName() {
        return driverClassName;
    }

    /** Extra driver properties, copied for every connect. */
    public void setDataSourceProperties(Properties dataSourceProperties) {
        Properties properties = check.beforeStart(dataSourceProperties);
        this.dataSourceProperties = properties == null ? new Properties() : properties;
    }

    public Properties getDataSourceProperties() {
        return dataSourceProperties;
    }

    /** Asked for credentials at every new connection, for rotation; wins over username/password. */
    public void setCredentialsSupplier(Supplier<Credentials> credentialsSupplier) {
        this.credentialsSupplier = check.beforeStart(credentialsSupplier);
    }

    public Supplier<Credentials> getCredentialsSupplier() {
        return credentialsSupplier;
    }

    /**
     * Connections kept open even when idle, opened at start. Default 2, or maxSize if that is
     * smaller (as HikariCP's minimumIdle); set explicitly above maxSize, the start refuses both.
     * Changes a running pool too: a higher minSize is filled in the background, a lower one lets
     * the idle timeout close the surplus.
     */
    public void setMinSize(int minSize) {
        int value = check.range("minSize", 0, minSize);
        check.live(value, l -> l.withSizes(value, l.maxSize()), v -> this.minSize = v);
    }

    public int getMinSize() {
        return minSize != null ? minSize : Math.min(DEFAULT_MIN_SIZE, maxSize);
    }

    /**
     * The most physical connections at once. Default 10. Changes a running pool too: a higher
     * maxSize serves waiters at once; a lower one closes surplus idle connections at once and
     * retires lent ones as they come back (an unset minSize follows it down).
     */
    public void setMaxSize(int maxSize) {
        int value = check.range("maxSize", 1, maxSize);
        // minSize read inside the change, under its lock: a concurrent setMinSize is either before or after
        check.live(value, l -> l.withSizes(minSize != null ? minSize : Math.min(DEFAULT_MIN_SIZE, value), value),
                v -> this.maxSize = v);
    }

    public int getMaxSize() {
        return maxSize;
    }

    /** How long a statement waits for a physical connection. Default 30 s. Changes a running pool too. */
    public void setAcquireTimeout(Duration acquireTimeout) {
        check.live(check.zeroOrMore("acquireTimeout", acquireTimeout), l -> l.withAcquireTimeout(acquireTimeout),
                v -> this.acquireTimeout = v);
    }

    public Duration getAcquireTimeout() {
        return acquireTimeout;
    }

    /** How often idle connections are checked (keepalive, idle timeout, max lifetime). Default 30 s; 0 = never. */
    public void setHealthcheckInterval(Duration healthcheckInterval) {
        this.healthcheckInterval = check.nonNegative("healthcheckInterval", healthcheckInterval);
    }

    public Duration getHealthcheckInterval() {
        return healthcheckInterval;
    }

    /** Idle connections above minSize are closed after this long. Default 10 min; 0 = never. Changes a running pool too. */
    public void setIdleTimeout(Duration idleTimeout) {
        check.live(check.zeroOrMore("idleTimeout", idleTimeout), l -> l.withIdleTimeout(idleTimeout), v -> this.idleTimeout = v);
    }

    public Duration getIdleTimeout() {
        return idleTimeout;
    }

    /**
     * Connections are retired after this long (minus up to 2.5 % jitter). Default 30 min; 0 = never.
     * Changed on a running pool, it applies to the connections opened from then on.
     */
    public void setMaxLifetime(Duration maxLifetime) {
        check.live(check.zeroOrMore("maxLifetime", maxLifetime), l -> l.withMaxLifetime(maxLifetime), v -> this.maxLifetime = v);
    }

    public Duration getMaxLifetime() {
        return maxLifetime;
    }

    /** The {@code isValid} timeout, in whole seconds (at least 1). Default 5 s. Changes a running pool too. */
    public void setValidationTimeout(Duration validationTimeout) {
        check.live(check.zeroOrMore("validationTimeout", validationTimeout), l -> l.withValidationTimeout(validationTimeout),
                v -> this.validationTimeout = v);
    }

    public Duration getValidationTimeout() {
        return validationTimeout;
    }

    /**
     * Warn when a physical connection stays bound longer than this, with where it was bound.
     * Default 0 = off. Changes a running pool too, for the bindings made from then on.
     */
    public void setLeakDetectionThreshold(Duration leakDetectionThreshold) {
        check.live(check.zeroOrMore("leakDetectionThreshold", leakDetectionThreshold),
                l -> l.withLeakDetectionThreshold(leakDetectionThreshold), v -> this.leakDetectionThreshold = v);
    }

    public Duration getLeakDetectionThreshold() {
        return leakDetectionThreshold;
    }

    /**
     * Whether a handle still holding a physical connection is reclaimed (rolled back, reset and
     * returned) once the thread that last used it has ended and no other thread used it for a full
     * housekeeping period: any call on the handle, or on a statement, result set or metadata from
     * it, is use. Never while statements or result sets of it are open, since another thread may be
     * reading them. Default false: a {@code Connection} may legally outlive that thread (a
     * transaction handed to another thread, a {@code LISTEN} connection a startup thread opened), so
     * the pool only logs a leak warning. Turn it on for services whose connections never leave
     * their thread. A handle that becomes unreachable without close is reclaimed either way.
     */
    public void setReclaimOnOwnerExit(boolean reclaimOnOwnerExit) {
        this.reclaimOnOwnerExit = check.beforeStart(reclaimOnOwnerExit);
    }

    public boolean isReclaimOnOwnerExit() {
        return reclaimOnOwnerExit;
    }

    /** {@link ReleaseMode#STATEMENT} (default) or {@link ReleaseMode#CLOSE}. */
    public void setReleaseMode(ReleaseMode releaseMode) {
        this.releaseMode = check.oneOf("releaseMode", ReleaseMode.class, releaseMode);
    }

    public ReleaseMode getReleaseMode() {
        return releaseMode;
    }

    /** What stands between the pool and the database: {@link ServerPooler#NONE} (default) or a pooler in transaction mode. */
    public void setServerPooler(ServerPooler serverPooler) {
        this.serverPooler = check.oneOf("serverPooler", ServerPooler.class, serverPooler);
    }

    public ServerPooler getServerPooler() {
        return serverPooler;
    }

    /**
     * JDBC URLs of read replicas, each with a pool of its own ({@code <poolName>-replica-1}, …): a
     * handle whose {@code readOnly} is true binds to one of them, in turn; everything else binds to
     * the primary. They share the credentials, driver properties and timeouts. Default none.
     */
    public void setReplicas(List<String> replicas) {
        this.replicas = check.jdbcUrls("replicas", replicas);
    }

    public List<String> getReplicas() {
        return replicas;
    }

    /** minSize of each replica's pool; the primary's unless set. */
    public void setReplicaMinSize(Integer replicaMinSize) {
        this.replicaMinSize = check.unsetOrAtLeast("replicaMinSize", 0, replicaMinSize);
    }

    public Integer getReplicaMinSize() {
        return replicaMinSize;
    }

    /** maxSize of each replica's pool; the primary's unless set. */
    public void setReplicaMaxSize(Integer replicaMaxSize) {
        this.replicaMaxSize = check.unsetOrAtLeast("replicaMaxSize", 1, replicaMaxSize);
    }

    public Integer getReplicaMaxSize() {
        return replicaMaxSize;
    }

    /**
     * Whether read-only work binds to the primary when no replica can give a connection (each is
     * down, failing fast, or out of connections within the acquire timeout). Default true; false
     * fails it with the replica's error.
     */
    public void setReplicaFallbackToPrimary(boolean replicaFallbackToPrimary) {
        this.replicaFallbackToPrimary = check.beforeStart(replicaFallbackToPrimary);
    }

    public boolean isReplicaFallbackToPrimary() {
        return replicaFallbackToPrimary;
    }

    public void setPoolName(String poolName) {
        this.poolName = check.beforeStart(poolName);
    }

    /** The name in messages, thread names and metrics; {@code loompool} unless set. */
    public String getPoolName() {
        return poolName == null || poolName.isBlank() ? "loompool" : poolName;
    }

    /** SQL run on every new connection (and again after a session reset). */
    public void setConnectionInitSql(String connectionInitSql) {
        this.connectionInitSql = check.beforeStart(connectionInitSql);
    }

    public String getConnectionInitSql() {
        return connectionInitSql;
    }

    /** The autoCommit of new connections; the driver's (true) unless set. */
    public void setAutoCommit(Boolean autoCommit) {
        this.autoCommit = check.beforeStart(autoCommit);
    }

    public Boolean getAutoCommit() {
        return autoCommit;
    }

    /** The isolation of new connections, e.g. {@code READ_COMMITTED} or {@code TRANSACTION_SERIALIZABLE}. */
    public void setTransactionIsolation(String transactionIsolation) {
        this.transactionIsolation = check.isolation(transactionIsolation);
    }

    public String getTransactionIsolation() {
        return transactionIsolation;
    }

    public void setReadOnly(Boolean readOnly) {
        this.readOnly = check.beforeStart(readOnly);
    }

    public Boolean getReadOnly() {
        return readOnly;
    }

    public void setCatalog(String catalog) {
        this.catalog = check.beforeStart(catalog);
    }

    public String getCatalog() {
        return catalog;
    }

    public void setSchema(String schema) {
        this.schema = check.beforeStart(schema);
    }

    public String getSchema() {
        return schema;
    }

    /** Consecutive connection failures that open the circuit breaker. Default 5; 0 turns the breaker off. */
    public void setCircuitBreakerFailureThreshold(int circuitBreakerFailureThreshold) {
        this.circuitBreakerFailureThreshold = check.atLeast("circuitBreakerFailureThreshold", 0,
                " (0 turns the breaker off)", circuitBreakerFailureThreshold);
    }

    public int getCircuitBreakerFailureThreshold() {
        return circuitBreakerFailureThreshold;
    }

    /**
     * The longest the open breaker fails fast before it lets one probe through. The first probe
     * comes after 1/64 of it, and each failed probe doubles the wait up to this. Default 5 s.
     */
    public void setCircuitBreakerOpenDuration(Duration circuitBreakerOpenDuration) {
        this.circuitBreakerOpenDuration = check.nonNegative("circuitBreakerOpenDuration", circuitBreakerOpenDuration);
    }

    public Duration getCircuitBreakerOpenDuration() {
        return circuitBreakerOpenDuration;
    }

    /**
     * How long {@code start()} keeps trying to open minSize connections before it fails: 0 (default)
     * fails at the first connect that fails, as HikariCP's default does; a positive duration retries
     * (100 ms apart, doubling to 1 s) until it has passed (for a database that starts beside the
     * application), then fails naming the attempts and the last driver error; a negative one never
     * fails the start: after one failed attempt the pool starts with what it has and opens the rest
     * in the background, while requests try their own connect and fail fast once the circuit
     * breaker opens. Each attempt is bounded by the driver's connect timeout (acquireTimeout).
     */
    public void setInitializationFailTimeout(Duration initializationFailTimeout) {
        this.initializationFailTimeout = check.present("initializationFailTimeout", initializationFailTimeout);
    }

    public Duration getInitializationFailTimeout() {
        return initializationFailTimeout;
    }

    /** Log once, at WARN, a handle pinned by session state or explicitly for longer than this. Default 0 = off. */
    public void setPinWarningThreshold(Duration pinWarningThreshold) {
        this.pinWarningThreshold = check.nonNegative("pinWarningThreshold", pinWarningThreshold);
    }

    public Duration getPinWarningThreshold() {
        return pinWarningThreshold;
    }

    /**
     * Register the pool's {@link LoomPoolMXBean} as {@code dev.loompool:type=Pool,name=<poolName>} at start,
     * until close; a name another pool in this JVM holds fails the start. Default false.
     */
    public void setRegisterMbeans(boolean registerMbeans) {
        this.registerMbeans = check.beforeStart(registerMbeans);
    }

    public boolean isRegisterMbeans() {
        return registerMbeans;
    }


}
