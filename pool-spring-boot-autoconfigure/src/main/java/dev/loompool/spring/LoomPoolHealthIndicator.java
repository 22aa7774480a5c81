package dev.loompool.spring;

import dev.loompool.CircuitBreakerState;
import dev.loompool.PoolStats;
import dev.loompool.jdbc.LoomPoolDataSource;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/** DOWN while the circuit breaker is open; the state and the counts as details. Never touches the database. */
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
        Health.Builder health = state == CircuitBreakerState.INACTIVE ? Health.down() : Health.up();
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
