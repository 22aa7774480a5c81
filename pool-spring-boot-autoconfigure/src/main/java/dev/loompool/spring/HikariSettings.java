package dev.loompool.spring;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;

/**
 * The target {@code spring.datasource.hikari.*} is bound onto: one setter per HikariCP key that has
 * a loompool equivalent, each passing the value on to the pool's setter, which refuses it as it
 * would refuse the {@code loompool.*} key. Timeouts are {@link Duration}s, so that a plain number
 * is read in milliseconds (Boot's default unit, and HikariCP's) and Boot's {@code 30s} works too
 * (Boot binding onto {@code HikariConfig}'s {@code long} setters would refuse it).
 *
 * <p>Where HikariCP's meaning differs from loompool's, the setter maps it, and says so. HikariCP's
 * silent corrections of values it finds out of range (a {@code max-lifetime} under 30 s reset to
 * 30 min, a {@code keepalive-time} under 30 s turned off…) are not copied: the pool runs the value
 * written, or refuses it naming the key.
 */
final class HikariSettings {

    private final LoomPoolDataSource ds;

    HikariSettings(LoomPoolDataSource ds) {
        this.ds = ds;
    }

    // The connection: over spring.datasource.* and JdbcConnectionDetails, set on the pool before these.

    public void setJdbcUrl(String jdbcUrl) {
        ds.setJdbcUrl(jdbcUrl);
    }

    public void setUsername(String username) {
        ds.setUsername(username);
    }

    public void setPassword(String password) {
        ds.setPassword(password);
    }

    public void setDriverClassName(String driverClassName) {
        ds.setDriverClassName(driverClassName);
    }

    public void setMaximumPoolSize(int maximumPoolSize) {
        ds.setMaxSize(maximumPoolSize);
    }

    /** Unset, HikariCP's is maximum-pool-size: {@link HikariKeys} applies that once loompool.* is bound. */
    public void setMinimumIdle(int minimumIdle) {
        ds.setMinSize(minimumIdle);
    }

    /** HikariCP reads 0 as "wait forever", which it caps at Integer.MAX_VALUE ms; loompool's 0 would fail at once. */
    public void setConnectionTimeout(Duration connectionTimeout) {
        ds.setAcquireTimeout(connectionTimeout != null && connectionTimeout.isZero()
                ? Duration.ofMillis(Integer.MAX_VALUE) : connectionTimeout);
    }

    public void setIdleTimeout(Duration idleTimeout) {
        ds.setIdleTimeout(idleTimeout);
    }

    public void setMaxLifetime(Duration maxLifetime) {
        ds.setMaxLifetime(maxLifetime);
    }

    /**
     * HikariCP's keepalive pings each idle connection this long after its last use; loompool's
     * health check looks at the idle connections this often, and also enforces the idle timeout
     * and max lifetime on its round. HikariCP's 0 turns only the keepalive off, so it keeps
     * loompool's interval instead of turning the whole round off.
     */
    public void setKeepaliveTime(Duration keepaliveTime) {
        if (keepaliveTime == null || !keepaliveTime.isZero()) {
            ds.setHealthcheckInterval(keepaliveTime);
        }
    }

    public void setLeakDetectionThreshold(Duration leakDetectionThreshold) {
        ds.setLeakDetectionThreshold(leakDetectionThreshold);
    }

    public void setValidationTimeout(Duration validationTimeout) {
        ds.setValidationTimeout(validationTimeout);
    }

    public void setConnectionInitSql(String connectionInitSql) {
        ds.setConnectionInitSql(connectionInitSql);
    }

    public void setAutoCommit(boolean autoCommit) {
        ds.setAutoCommit(autoCommit);
    }

    /**
     * HikariCP takes {@code TRANSACTION_READ_COMMITTED}, which loompool takes as it is, or the
     * {@code java.sql.Connection} constant's number ({@code 2}), turned into its name here.
     */
    public void setTransactionIsolation(String transactionIsolation) {
        ds.setTransactionIsolation(isolationName(transactionIsolation));
    }

    public void setReadOnly(boolean readOnly) {
        ds.setReadOnly(readOnly);
    }

    public void setSchema(String schema) {
        ds.setSchema(schema);
    }

    public void setCatalog(String catalog) {
        ds.setCatalog(catalog);
    }

    /** Beats spring.datasource.name, as with HikariCP (its binding comes after Boot sets the name). */
    public void setPoolName(String poolName) {
        ds.setPoolName(poolName);
    }

    public void setDataSourceProperties(Map<String, String> dataSourceProperties) {
        Properties properties = new Properties();
        properties.putAll(dataSourceProperties);
        ds.setDataSourceProperties(properties);
    }

    public void setRegisterMbeans(boolean registerMbeans) {
        ds.setRegisterMbeans(registerMbeans);
    }

    /**
     * HikariCP (milliseconds), whose pool Boot starts at first use, so that no value stops the
     * application's start: 1 (its default) fails that first use at the first failed connect, 0
     * starts the pool even when no connection can be had, a negative value starts it without
     * trying; all three are loompool's negative value (one attempt, then the pool starts and
     * connects in the background). A larger value makes the first use retry that long; loompool's
     * start retries that long, as a database starting beside the application needs.
     */
    public void setInitializationFailTimeout(Duration initializationFailTimeout) {
        Duration mapped = initializationFailTimeout;
        if (initializationFailTimeout != null) {
            if (initializationFailTimeout.compareTo(Duration.ofMillis(1)) <= 0) {
                mapped = Duration.ofMillis(-1);
            }
        }
        ds.setInitializationFailTimeout(mapped);
    }

    private static String isolationName(String value) {
        if (value == null || !value.trim().matches("\\d+")) {
            return value;
        }
        return switch (Integer.parseInt(value.trim())) {
            case Connection.TRANSACTION_NONE -> "NONE";
            case Connection.TRANSACTION_READ_UNCOMMITTED -> "READ_UNCOMMITTED";
            case Connection.TRANSACTION_READ_COMMITTED -> "READ_COMMITTED";
            case Connection.TRANSACTION_REPEATABLE_READ -> "REPEATABLE_READ";
            case Connection.TRANSACTION_SERIALIZABLE -> "SERIALIZABLE";
            default -> value; // refused by the pool, naming the allowed levels
        };
    }
}
