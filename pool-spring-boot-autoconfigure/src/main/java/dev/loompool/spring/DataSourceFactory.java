package dev.loompool.spring;

import dev.loompool.PoolListener;
import dev.loompool.jdbc.LoomPoolDataSource;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;

/**
 * Builds and starts the auto-configured {@link LoomPoolDataSource}, turning a wrong setting or an
 * unreachable database into a {@link LoomPoolStartupException} that names the key to change.
 */
final class DataSourceFactory {

    private DataSourceFactory() {
    }

    static LoomPoolDataSource create(JdbcConnectionDetails connection, DataSourceProperties dataSource,
            LoomPoolProperties pool, List<PoolListener> listeners) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(connection.getJdbcUrl());
        ds.setUsername(connection.getUsername());
        ds.setPassword(connection.getPassword());
        ds.setDriverClassName(connection.getDriverClassName());
        ds.setPoolName(pool.getPoolName() != null ? pool.getPoolName() : dataSource.getName());
        ds.setMinSize(pool.getMinSize());
        ds.setMaxSize(pool.getMaxSize());
        ds.setAcquireTimeout(pool.getAcquireTimeout());
        ds.setHealthcheckInterval(pool.getHealthcheckInterval());
        ds.setIdleTimeout(pool.getIdleTimeout());
        ds.setMaxLifetime(pool.getMaxLifetime());
        ds.setValidationTimeout(pool.getValidationTimeout());
        ds.setLeakDetectionThreshold(pool.getLeakDetectionThreshold());
        ds.setReclaimOnOwnerExit(pool.isReclaimOnOwnerExit());
        ds.setReleaseMode(pool.getReleaseMode());
        ds.setConnectionInitSql(pool.getConnectionInitSql());
        ds.setAutoCommit(pool.getAutoCommit());
        ds.setTransactionIsolation(pool.getTransactionIsolation());
        ds.setReadOnly(pool.getReadOnly());
        ds.setCatalog(pool.getCatalog());
        ds.setSchema(pool.getSchema());
        Properties props = new Properties();
        props.putAll(pool.getDataSourceProperties());
        ds.setDataSourceProperties(props);
        ds.setCircuitBreakerFailureThreshold(pool.getCircuitBreaker().getFailureThreshold());
        ds.setCircuitBreakerOpenDuration(pool.getCircuitBreaker().getOpenDuration());
        listeners.forEach(ds::addPoolListener);
        return ds;
    }

    /** Starts the pool now, so that a bad setting or an unreachable database stops the startup. */
    static void start(LoomPoolDataSource ds) {
        try {
            ds.start();
        } catch (IllegalArgumentException e) {
            String key = keyFor(e.getMessage());
            throw new LoomPoolStartupException("Invalid loompool configuration: " + key + ": " + e.getMessage(),
                    "Change " + key + " in your configuration (see the loompool README for the allowed values).", e);
        } catch (SQLException e) {
            throw new LoomPoolStartupException("loompool could not start: " + e.getMessage(),
                    "Check that the database is running and reachable at that URL, and that "
                            + "spring.datasource.username and spring.datasource.password are right; or set "
                            + "loompool.min-size=0 to start without opening connections.", e);
        }
    }

    /**
     * The configuration key behind a core validation message, which starts with the setting's
     * name: {@code maxSize must be >= 1} is {@code loompool.max-size}.
     */
    static String keyFor(String message) {
        String setting = message == null ? "" : message.split("[ =]", 2)[0];
        switch (setting) {
            case "jdbcUrl":
                return "spring.datasource.url";
            case "driverClassName":
                return "spring.datasource.driver-class-name";
            case "circuitBreakerFailureThreshold":
                return "loompool.circuit-breaker.failure-threshold";
            case "circuitBreakerOpenDuration":
                return "loompool.circuit-breaker.open-duration";
            default:
                return "loompool." + setting.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
        }
    }
}
