package dev.loompool.jdbc.internal.lifecycle;

import dev.loompool.PoolClock;
import dev.loompool.jdbc.Credentials;
import dev.loompool.jdbc.ReleaseMode;
import dev.loompool.jdbc.ServerPooler;
import dev.loompool.jdbc.internal.physical.JdbcPool;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.function.Supplier;

/**
 * A {@link PoolConfig} for the lifecycle room's tests, with the JavaBean's defaults but for what a
 * unit test wants off: no health checks (no background work on a hand-moved clock), minSize 0,
 * maxSize 4. A test sets the fields it is about, then calls {@link #build()}.
 */
final class ConfigBuilder {

    String poolName = "lifecycle";
    String jdbcUrl;
    String driverClassName;
    Properties dataSourceProperties = new Properties();
    String username = "app";
    String password = "s3cretPw";
    Supplier<Credentials> credentialsSupplier;
    String connectionInitSql;
    PoolConfig.Limits limits = limits(0, 4);
    Duration healthcheckInterval = Duration.ZERO;
    boolean reclaimOnOwnerExit;
    ReleaseMode releaseMode = ReleaseMode.STATEMENT;
    ServerPooler serverPooler = ServerPooler.NONE;
    List<String> replicas = List.of();
    Integer replicaMinSize;
    Integer replicaMaxSize;
    boolean replicaFallbackToPrimary = true;
    Boolean autoCommit;
    String transactionIsolation;
    Boolean readOnly;
    String catalog;
    String schema;
    int circuitBreakerFailureThreshold = 5;
    Duration circuitBreakerOpenDuration = Duration.ofSeconds(5);
    Duration initializationFailTimeout = Duration.ZERO;
    Duration pinWarningThreshold = Duration.ZERO;

    ConfigBuilder(String jdbcUrl) {
        this.jdbcUrl = jdbcUrl;
    }

    /** The JavaBean's default timeouts: acquire 5 s, no leak detection, validation 5 s, idle 10 min, lifetime 30 min. */
    static PoolConfig.Limits limits(int minSize, int maxSize) {
        return new PoolConfig.Limits(minSize, maxSize, Duration.ofSeconds(5), Duration.ZERO, Duration.ofSeconds(5),
                Duration.ofMinutes(10), Duration.ofMinutes(30));
    }

    PoolConfig build() {
        return new PoolConfig(poolName, jdbcUrl, driverClassName, dataSourceProperties, username, password,
                credentialsSupplier, connectionInitSql, limits, healthcheckInterval, reclaimOnOwnerExit, releaseMode,
                serverPooler, replicas, replicaMinSize, replicaMaxSize, replicaFallbackToPrimary, autoCommit,
                transactionIsolation, readOnly, catalog, schema, circuitBreakerFailureThreshold,
                circuitBreakerOpenDuration, initializationFailTimeout, pinWarningThreshold, null);
    }

    /** The engine pool {@link Startup} makes of these settings, on {@code clock}, with no listeners. */
    JdbcPool start(PoolClock clock) throws SQLException {
        return Startup.start(build(), clock, List.of(), i -> List.of(), () -> false);
    }
}
