package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Limits changed at run time (endpoint, JMX) show in {@code hikaricp.connections.max} and {@code .min}
 * at once, as HikariCP's gauges follow HikariConfigMXBean's setMaximumPoolSize and setMinimumIdle;
 * the replicas' too when they follow the primary's sizes.
 */
class HikariGaugesFollowLimitsTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class,
                    LoomPoolMetricsAutoConfiguration.class, LoomPoolEndpointAutoConfiguration.class,
                    DataSourceAutoConfiguration.class, MetricsAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + LoomPoolAutoConfigurationTest.h2(),
                    "loompool.replicas=" + LoomPoolAutoConfigurationTest.h2(), "loompool.pool-name=orders",
                    "loompool.min-size=1", "loompool.max-size=4", "loompool.metrics.hikari-compatible=true",
                    "management.endpoints.web.exposure.include=loompool");

    private static double gauge(MeterRegistry registry, String name, String pool) {
        return registry.get(name).tag("pool", pool).gauge().value();
    }

    @Test
    void maxAndMinGaugesOfThePoolAndItsReplicaFollowAChangeAtOnce() {
        runner.run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            context.getBean(LoomPoolEndpoint.class).changeLimits("orders", "limits", 0, 7, null, null);
            for (String pool : new String[] {"orders", "orders-replica-1"}) {
                assertThat(gauge(registry, "hikaricp.connections.max", pool)).as(pool).isEqualTo(7);
                assertThat(gauge(registry, "hikaricp.connections.min", pool)).as(pool).isZero();
            }
            ds.setMaxSize(1);
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                s.execute("SELECT 1");
                assertThat(gauge(registry, "hikaricp.connections.max", "orders")).isEqualTo(1);
                assertThat(gauge(registry, "hikaricp.connections.active", "orders")).isEqualTo(1);
                assertThat(gauge(registry, "hikaricp.connections", "orders")).isLessThanOrEqualTo(1);
            }
            assertThat(gauge(registry, "hikaricp.connections", "orders")).isLessThanOrEqualTo(1);
        });
    }
}
