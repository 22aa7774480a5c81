package dev.loompool.spring;

import dev.loompool.CircuitBreakerState;
import dev.loompool.PoolStats;
import dev.loompool.jdbc.LoomPoolDataSource;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * DOWN while the circuit breaker is open, and while the pool has never opened a connection and its
 * last connect failed (a start with a negative {@code initialization-fail-timeout} against a database
 * that is down: the breaker may still be closed, or off); the state and the counts as details, and
 * then the masked connect error. Never touches the database.
 */
final class LoomPoolHealthIndicator implements HealthIndicator {

    private final LoomPoolDataSource dataSource;

    LoomPoolHealthIndicator(LoomPoolDataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public Health health() {
        if (!dataSource.isRunning()) {
            return Health.down().withDetail("pool", dataSource.getPoolName()).withDetail("running", false).build();
        }
        CircuitBreakerState state = dataSource.getPool().state();
        PoolStats stats = dataSource.getPool().stats();
        String neverConnected = dataSource.getInitialConnectError();
        Health.Builder health = state == CircuitBreakerState.INACTIVE || neverConnected != null ? Health.down() : Health.up();
        if (neverConnected != null) {
            health.withDetail("connections", 0).withDetail("lastConnectError", neverConnected);
        }
        return health.withDetail("pool", dataSource.getPoolName())
                .withDetail("circuitBreaker", state.name())
                .withDetail("total", stats.total())
                .withDetail("idle", stats.idle())
                .withDetail("inUse", stats.inUse())
                .withDetail("pending", stats.pending())
                .withDetail("maxSize", stats.maxSize())
                .withDetail("openHandles", dataSource.getOpenHandles())
                .build();
    }
}
