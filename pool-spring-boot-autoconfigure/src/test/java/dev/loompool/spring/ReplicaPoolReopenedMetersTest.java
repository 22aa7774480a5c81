package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Scope;

/**
 * As PoolReopenedMetersTest, for a pool with a replica: after a refresh (the pool closed, made
 * again under its name), the replica's {@code hikaricp.*} and {@code db.client.connection.*} meters
 * read the new replica pool, not NaN of the closed one, and its borrows count there.
 */
class ReplicaPoolReopenedMetersTest {

    private static int made;

    @Configuration(proxyBeanMethods = false)
    static class RefreshedPoolWithReplica {
        @Bean(destroyMethod = "close")
        @Scope(ConfigurableBeanFactory.SCOPE_PROTOTYPE)
        LoomPoolDataSource orders() {
            LoomPoolDataSource ds = EveryPoolIsWiredTest.h2Pool("orders");
            ds.setMaxSize(3);
            ds.setReplicas(List.of(LoomPoolAutoConfigurationTest.h2()));
            ds.setReplicaMaxSize(++made + 1);
            return ds;
        }
    }

    private static void readOnce(LoomPoolDataSource ds) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setReadOnly(true);
            try (Statement s = c.createStatement()) {
                s.execute("SELECT 1");
            }
        }
    }

    @Test
    void theReplicasMetersReadTheNewReplicaPoolAfterARefresh() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                        LoomPoolMetricsAutoConfiguration.class, MetricsAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
                .withUserConfiguration(RefreshedPoolWithReplica.class)
                .withPropertyValues("loompool.metrics.hikari-compatible=true")
                .run(context -> {
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    LoomPoolDataSource first = context.getBean(LoomPoolDataSource.class);
                    readOnce(first);
                    int firstMax = first.getReplicaMaxSize();
                    assertThat(registry.get("hikaricp.connections.max").tag("pool", "orders-replica-1").gauge().value())
                            .isEqualTo(firstMax);
                    first.close();
                    LoomPoolDataSource second = context.getBean(LoomPoolDataSource.class);
                    readOnce(second);
                    int secondMax = second.getReplicaMaxSize();
                    assertThat(secondMax).isNotEqualTo(firstMax);
                    assertThat(registry.get("hikaricp.connections.max").tag("pool", "orders-replica-1").gauge().value())
                            .as("the new replica pool's max").isEqualTo(secondMax);
                    assertThat(registry.get("db.client.connection.max")
                            .tag(LoomPoolMeter.POOL_NAME, "orders-replica-1").gauge().value()).isEqualTo(secondMax);
                    assertThat(registry.get("hikaricp.connections.acquire").tag("pool", "orders-replica-1").timer()
                            .count()).as("the new replica's borrow counted, as HikariCP's fresh meters would").isEqualTo(1);
                    assertThat(registry.find("hikaricp.connections.max").tag("pool", "orders-replica-1").gauges())
                            .hasSize(1);
                    second.close();
                });
    }
}
