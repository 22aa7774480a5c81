package dev.loompool.spring;

import dev.loompool.jdbc.ReleaseMode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code loompool.*} settings of the auto-configured pool. The URL, user name, password and
 * driver come from {@code spring.datasource.*} or a {@code JdbcConnectionDetails} bean.
 */
@ConfigurationProperties("loompool")
public class LoomPoolProperties {

    /** Physical connections kept open even when idle; opened at startup. */
    private int minSize = 2;

    /** The most physical connections open at once. */
    private int maxSize = 10;

    /** How long a statement waits for a physical connection before it fails. */
    private Duration acquireTimeout = Duration.ofSeconds(30);

    /** How often idle connections are checked (keepalive, idle timeout, max lifetime); 0 turns it off. */
    private Duration healthcheckInterval = Duration.ofSeconds(30);

    /** Idle connections above min-size are closed after this long; 0 keeps them. */
    private Duration idleTimeout = Duration.ofMinutes(10);

    /** Connections are retired after this long, minus up to 2.5 % jitter; 0 keeps them. */
    private Duration maxLifetime = Duration.ofMinutes(30);

    /** Timeout of the isValid check, rounded up to whole seconds. */
    private Duration validationTimeout = Duration.ofSeconds(5);

    /** Log a warning, with the stack that took it, when a connection stays bound longer than this; 0 turns it off. */
    private Duration leakDetectionThreshold = Duration.ZERO;

    /**
     * Whether to reclaim (roll back, reset and return) the connection of a handle whose last user's
     * thread has ended, once no other thread has used it (or a statement, result set or metadata
     * from it) for a housekeeping period, and none of its statements or result sets is open. Off by default,
     * since a Connection may legally outlive that thread (a transaction handed to another thread, a
     * LISTEN connection opened at startup): the pool then only logs a leak warning. A handle dropped
     * without close is reclaimed either way.
     */
    private boolean reclaimOnOwnerExit;

    /** When a logical connection gives its physical connection back: STATEMENT (as soon as nothing pins it) or CLOSE (classic). */
    private ReleaseMode releaseMode = ReleaseMode.STATEMENT;

    /** Name of the pool in messages, thread names, metrics and the Actuator endpoint; spring.datasource.name, else "loompool". */
    private String poolName;

    /** SQL run on every new connection, and again after a session reset. */
    private String connectionInitSql;

    /** Default autoCommit of new connections; the driver's when unset. */
    private Boolean autoCommit;

    /** Default isolation of new connections: READ_UNCOMMITTED, READ_COMMITTED, REPEATABLE_READ, SERIALIZABLE or NONE; the driver's when unset. */
    private String transactionIsolation;

    /** Whether new connections are read-only; the driver's default when unset. */
    private Boolean readOnly;

    /** Default catalog of new connections. */
    private String catalog;

    /** Default schema of new connections. */
    private String schema;

    /** Extra driver properties, passed to every connect. */
    private Map<String, String> dataSourceProperties = new LinkedHashMap<>();

    private final CircuitBreaker circuitBreaker = new CircuitBreaker();

    public static class CircuitBreaker {

        /** Consecutive connection failures that open the circuit breaker; 0 turns it off. */
        private int failureThreshold = 5;

        /**
         * The longest the open circuit breaker fails requests at once before it lets one probe
         * through; the first probe comes after 1/64 of it, each failed one doubles the wait.
         */
        private Duration openDuration = Duration.ofSeconds(5);

        public int getFailureThreshold() {
            return failureThreshold;
        }

        public void setFailureThreshold(int failureThreshold) {
            this.failureThreshold = failureThreshold;
        }

        public Duration getOpenDuration() {
            return openDuration;
        }

        public void setOpenDuration(Duration openDuration) {
            this.openDuration = openDuration;
        }
    }

    public int getMinSize() {
        return minSize;
    }

    public void setMinSize(int minSize) {
        this.minSize = minSize;
    }

    public int getMaxSize() {
        return maxSize;
    }

    public void setMaxSize(int maxSize) {
        this.maxSize = maxSize;
    }

    public Duration getAcquireTimeout() {
        return acquireTimeout;
    }

    public void setAcquireTimeout(Duration acquireTimeout) {
        this.acquireTimeout = acquireTimeout;
    }

    public Duration getHealthcheckInterval() {
        return healthcheckInterval;
    }

    public void setHealthcheckInterval(Duration healthcheckInterval) {
        this.healthcheckInterval = healthcheckInterval;
    }

    public Duration getIdleTimeout() {
        return idleTimeout;
    }

    public void setIdleTimeout(Duration idleTimeout) {
        this.idleTimeout = idleTimeout;
    }

    public Duration getMaxLifetime() {
        return maxLifetime;
    }

    public void setMaxLifetime(Duration maxLifetime) {
        this.maxLifetime = maxLifetime;
    }

    public Duration getValidationTimeout() {
        return validationTimeout;
    }

    public void setValidationTimeout(Duration validationTimeout) {
        this.validationTimeout = validationTimeout;
    }

    public Duration getLeakDetectionThreshold() {
        return leakDetectionThreshold;
    }

    public void setLeakDetectionThreshold(Duration leakDetectionThreshold) {
        this.leakDetectionThreshold = leakDetectionThreshold;
    }

    public boolean isReclaimOnOwnerExit() {
        return reclaimOnOwnerExit;
    }

    public void setReclaimOnOwnerExit(boolean reclaimOnOwnerExit) {
        this.reclaimOnOwnerExit = reclaimOnOwnerExit;
    }

    public ReleaseMode getReleaseMode() {
        return releaseMode;
    }

    public void setReleaseMode(ReleaseMode releaseMode) {
        this.releaseMode = releaseMode;
    }

    public String getPoolName() {
        return poolName;
    }

    public void setPoolName(String poolName) {
        this.poolName = poolName;
    }

    public String getConnectionInitSql() {
        return connectionInitSql;
    }

    public void setConnectionInitSql(String connectionInitSql) {
        this.connectionInitSql = connectionInitSql;
    }

    public Boolean getAutoCommit() {
        return autoCommit;
    }

    public void setAutoCommit(Boolean autoCommit) {
        this.autoCommit = autoCommit;
    }

    public String getTransactionIsolation() {
        return transactionIsolation;
    }

    public void setTransactionIsolation(String transactionIsolation) {
        this.transactionIsolation = transactionIsolation;
    }

    public Boolean getReadOnly() {
        return readOnly;
    }

    public void setReadOnly(Boolean readOnly) {
        this.readOnly = readOnly;
    }

    public String getCatalog() {
        return catalog;
    }

    public void setCatalog(String catalog) {
        this.catalog = catalog;
    }

    public String getSchema() {
        return schema;
    }

    public void setSchema(String schema) {
        this.schema = schema;
    }

    public Map<String, String> getDataSourceProperties() {
        return dataSourceProperties;
    }

    public void setDataSourceProperties(Map<String, String> dataSourceProperties) {
        this.dataSourceProperties = dataSourceProperties;
    }

    public CircuitBreaker getCircuitBreaker() {
        return circuitBreaker;
    }
}
