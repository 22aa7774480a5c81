package dev.loompool.jdbc;

import dev.loompool.PoolClock;
import dev.loompool.PoolListener;
import dev.loompool.jdbc.internal.StartedPool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The JavaBean configuration of {@link LoomPoolDataSource}, kept apart so that each file holds one
 * concept (as HikariCP's {@code HikariConfig} is the base of its data source); only
 * {@code LoomPoolDataSource} extends it. Setters refuse changes once the pool has started: a running pool's settings are frozen.
 * Each setter refuses a value out of its range with an {@code IllegalArgumentException} naming the
 * setting and what it may be, as HikariCP's do, so that a binder (Spring's {@code @ConfigurationProperties})
 * can say which key is wrong; what depends on several settings (minSize against maxSize, the URL
 * against the driver) is checked at start.
 */
public abstract class DataSourceSettings {

    private String jdbcUrl;
    private String username;
    private String password;
    private String driverClassName;
    private Properties dataSourceProperties = new Properties();
    private Supplier<Credentials> credentialsSupplier;
    private int minSize = 2;
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
    private PoolClock clock = PoolClock.SYSTEM;
    private BindObserver bindObserver;
    private final List<PoolListener> poolListeners = new ArrayList<>(2);
    private final List<Function<String, PoolListener>> replicaListeners = new ArrayList<>(1);

    /** Set once the pool has started, or the data source was closed: the settings no longer change. */
    private volatile boolean frozen;

    DataSourceSettings() {
    }

    final void freeze() {
        frozen = true;
    }

    final void checkNotStarted() {
        if (frozen) {
            throw new IllegalStateException("LoomPoolDataSource '" + getPoolName()
                    + "' has started: its configuration is frozen");
        }
    }

    /** The driver's JDBC URL. Required. */
    public void setJdbcUrl(String jdbcUrl) {
        checkNotStarted();
        this.jdbcUrl = jdbcUrl;
    }

    public String getJdbcUrl() {
        return jdbcUrl;
    }

    /** Alias of {@link #setJdbcUrl}, the name Spring's {@code DataSourceBuilder} uses. */
    public void setUrl(String url) {
        setJdbcUrl(url);
    }

    public String getUrl() {
        return jdbcUrl;
    }

    public void setUsername(String username) {
        checkNotStarted();
        this.username = username;
    }

    public String getUsername() {
        return username;
    }

    /** Never printed or logged by loompool (its {@code toString}, messages and endpoint mask it). */
    public void setPassword(String password) {
        checkNotStarted();
        this.password = password;
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
        checkNotStarted();
        this.driverClassName = driverClassName;
    }

    public String getDriverClassName() {
        return driverClassName;
    }

    /** Extra driver properties, copied for every connect. */
    public void setDataSourceProperties(Properties dataSourceProperties) {
        checkNotStarted();
        this.dataSourceProperties = dataSourceProperties == null ? new Properties() : dataSourceProperties;
    }

    public Properties getDataSourceProperties() {
        return dataSourceProperties;
    }

    /** Asked for credentials at every new connection, for rotation; wins over username/password. */
    public void setCredentialsSupplier(Supplier<Credentials> credentialsSupplier) {
        checkNotStarted();
        this.credentialsSupplier = credentialsSupplier;
    }

    public Supplier<Credentials> getCredentialsSupplier() {
        return credentialsSupplier;
    }

    /** Connections kept open even when idle, opened at start. Default 2. */
    public void setMinSize(int minSize) {
        checkNotStarted();
        if (minSize < 0) {
            throw new IllegalArgumentException("minSize must be >= 0, was " + minSize);
        }
        this.minSize = minSize;
    }

    public int getMinSize() {
        return minSize;
    }

    /** The most physical connections at once. Default 10. */
    public void setMaxSize(int maxSize) {
        checkNotStarted();
        if (maxSize < 1) {
            throw new IllegalArgumentException("maxSize must be >= 1, was " + maxSize);
        }
        this.maxSize = maxSize;
    }

    public int getMaxSize() {
        return maxSize;
    }

    /** How long a statement waits for a physical connection. Default 30 s. */
    public void setAcquireTimeout(Duration acquireTimeout) {
        checkNotStarted();
        this.acquireTimeout = nonNegative("acquireTimeout", acquireTimeout);
    }

    public Duration getAcquireTimeout() {
        return acquireTimeout;
    }

    /** How often idle connections are checked (keepalive, idle timeout, max lifetime). Default 30 s; 0 = never. */
    public void setHealthcheckInterval(Duration healthcheckInterval) {
        checkNotStarted();
        this.healthcheckInterval = nonNegative("healthcheckInterval", healthcheckInterval);
    }

    public Duration getHealthcheckInterval() {
        return healthcheckInterval;
    }

    /** Idle connections above minSize are closed after this long. Default 10 min; 0 = never. */
    public void setIdleTimeout(Duration idleTimeout) {
        checkNotStarted();
        this.idleTimeout = nonNegative("idleTimeout", idleTimeout);
    }

    public Duration getIdleTimeout() {
        return idleTimeout;
    }

    /** Connections are retired after this long (minus up to 2.5 % jitter). Default 30 min; 0 = never. */
    public void setMaxLifetime(Duration maxLifetime) {
        checkNotStarted();
        this.maxLifetime = nonNegative("maxLifetime", maxLifetime);
    }

    public Duration getMaxLifetime() {
        return maxLifetime;
    }

    /** The {@code isValid} timeout, rounded up to whole seconds. Default 5 s. */
    public void setValidationTimeout(Duration validationTimeout) {
        checkNotStarted();
        this.validationTimeout = nonNegative("validationTimeout", validationTimeout);
    }

    public Duration getValidationTimeout() {
        return validationTimeout;
    }

    /** Warn when a physical connection stays bound longer than this, with where it was bound. Default 0 = off. */
    public void setLeakDetectionThreshold(Duration leakDetectionThreshold) {
        checkNotStarted();
        this.leakDetectionThreshold = nonNegative("leakDetectionThreshold", leakDetectionThreshold);
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
        checkNotStarted();
        this.reclaimOnOwnerExit = reclaimOnOwnerExit;
    }

    public boolean isReclaimOnOwnerExit() {
        return reclaimOnOwnerExit;
    }

    /** {@link ReleaseMode#STATEMENT} (default) or {@link ReleaseMode#CLOSE}. */
    public void setReleaseMode(ReleaseMode releaseMode) {
        checkNotStarted();
        if (releaseMode == null) {
            throw new IllegalArgumentException("releaseMode must be one of STATEMENT, CLOSE, was null");
        }
        this.releaseMode = releaseMode;
    }

    public ReleaseMode getReleaseMode() {
        return releaseMode;
    }

    /** What stands between the pool and the database: {@link ServerPooler#NONE} (default) or a pooler in transaction mode. */
    public void setServerPooler(ServerPooler serverPooler) {
        checkNotStarted();
        if (serverPooler == null) {
            throw new IllegalArgumentException("serverPooler must be one of NONE, PGBOUNCER_TRANSACTION, was null");
        }
        this.serverPooler = serverPooler;
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
        checkNotStarted();
        List<String> urls = replicas == null ? List.of() : List.copyOf(replicas);
        for (int i = 0; i < urls.size(); i++) {
            if (urls.get(i).isBlank()) {
                throw new IllegalArgumentException("replicas[" + i + "] must be a JDBC URL, was blank");
            }
        }
        this.replicas = urls;
    }

    public List<String> getReplicas() {
        return replicas;
    }

    /** minSize of each replica's pool; the primary's unless set. */
    public void setReplicaMinSize(Integer replicaMinSize) {
        checkNotStarted();
        if (replicaMinSize != null && replicaMinSize < 0) {
            throw new IllegalArgumentException("replicaMinSize must be >= 0, was " + replicaMinSize);
        }
        this.replicaMinSize = replicaMinSize;
    }

    public Integer getReplicaMinSize() {
        return replicaMinSize;
    }

    /** maxSize of each replica's pool; the primary's unless set. */
    public void setReplicaMaxSize(Integer replicaMaxSize) {
        checkNotStarted();
        if (replicaMaxSize != null && replicaMaxSize < 1) {
            throw new IllegalArgumentException("replicaMaxSize must be >= 1, was " + replicaMaxSize);
        }
        this.replicaMaxSize = replicaMaxSize;
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
        checkNotStarted();
        this.replicaFallbackToPrimary = replicaFallbackToPrimary;
    }

    public boolean isReplicaFallbackToPrimary() {
        return replicaFallbackToPrimary;
    }

    public void setPoolName(String poolName) {
        checkNotStarted();
        this.poolName = poolName;
    }

    /** The name in messages, thread names and metrics; {@code loompool} unless set. */
    public String getPoolName() {
        return poolName == null || poolName.isBlank() ? "loompool" : poolName;
    }

    /** SQL run on every new connection (and again after a session reset). */
    public void setConnectionInitSql(String connectionInitSql) {
        checkNotStarted();
        this.connectionInitSql = connectionInitSql;
    }

    public String getConnectionInitSql() {
        return connectionInitSql;
    }

    /** The autoCommit of new connections; the driver's (true) unless set. */
    public void setAutoCommit(Boolean autoCommit) {
        checkNotStarted();
        this.autoCommit = autoCommit;
    }

    public Boolean getAutoCommit() {
        return autoCommit;
    }

    /** The isolation of new connections, e.g. {@code READ_COMMITTED} or {@code TRANSACTION_SERIALIZABLE}. */
    public void setTransactionIsolation(String transactionIsolation) {
        checkNotStarted();
        if (transactionIsolation != null) {
            StartedPool.isolationLevel(transactionIsolation); // refuses an unknown level here, naming the allowed ones
        }
        this.transactionIsolation = transactionIsolation;
    }

    public String getTransactionIsolation() {
        return transactionIsolation;
    }

    public void setReadOnly(Boolean readOnly) {
        checkNotStarted();
        this.readOnly = readOnly;
    }

    public Boolean getReadOnly() {
        return readOnly;
    }

    public void setCatalog(String catalog) {
        checkNotStarted();
        this.catalog = catalog;
    }

    public String getCatalog() {
        return catalog;
    }

    public void setSchema(String schema) {
        checkNotStarted();
        this.schema = schema;
    }

    public String getSchema() {
        return schema;
    }

    /** Consecutive connection failures that open the circuit breaker. Default 5; 0 turns the breaker off. */
    public void setCircuitBreakerFailureThreshold(int circuitBreakerFailureThreshold) {
        checkNotStarted();
        if (circuitBreakerFailureThreshold < 0) {
            throw new IllegalArgumentException("circuitBreakerFailureThreshold must be >= 0 (0 turns the breaker off), was "
                    + circuitBreakerFailureThreshold);
        }
        this.circuitBreakerFailureThreshold = circuitBreakerFailureThreshold;
    }

    public int getCircuitBreakerFailureThreshold() {
        return circuitBreakerFailureThreshold;
    }

    /**
     * The longest the open breaker fails fast before it lets one probe through. The first probe
     * comes after 1/64 of it, and each failed probe doubles the wait up to this. Default 5 s.
     */
    public void setCircuitBreakerOpenDuration(Duration circuitBreakerOpenDuration) {
        checkNotStarted();
        this.circuitBreakerOpenDuration = nonNegative("circuitBreakerOpenDuration", circuitBreakerOpenDuration);
    }

    public Duration getCircuitBreakerOpenDuration() {
        return circuitBreakerOpenDuration;
    }

    /** Told whenever a handle binds a physical connection; see {@link BindObserver}. */
    public void setBindObserver(BindObserver bindObserver) {
        checkNotStarted();
        this.bindObserver = bindObserver;
    }

    public BindObserver getBindObserver() {
        return bindObserver;
    }

    /** Adds a listener to the underlying pool's events (for metrics). */
    public void addPoolListener(PoolListener listener) {
        checkNotStarted();
        poolListeners.add(listener);
    }

    final List<PoolListener> poolListeners() {
        return poolListeners;
    }

    /**
     * Adds a listener to each replica's pool (for its metrics): {@code forReplica} is asked at
     * start, once per replica, with that pool's name ({@code <poolName>-replica-N}).
     */
    public void addReplicaPoolListeners(Function<String, PoolListener> forReplica) {
        checkNotStarted();
        replicaListeners.add(forReplica);
    }

    /** The listeners of the replica at {@code index} (0-based; its pool is named {@code -replica-(index + 1)}). */
    final List<PoolListener> replicaListeners(int index) {
        List<PoolListener> listeners = new ArrayList<>(replicaListeners.size());
        String name = getPoolName() + "-replica-" + (index + 1);
        replicaListeners.forEach(f -> listeners.add(f.apply(name)));
        return listeners;
    }

    /** For tests: the clock that times idle, lifetime, leaks and the breaker. */
    final void setClock(PoolClock clock) {
        checkNotStarted();
        this.clock = clock;
    }

    final PoolClock clock() {
        return clock;
    }

    private static Duration nonNegative(String setting, Duration value) {
        if (value == null || value.isNegative()) {
            throw new IllegalArgumentException(setting + " must be a duration of zero or more, was " + value);
        }
        return value;
    }
}
