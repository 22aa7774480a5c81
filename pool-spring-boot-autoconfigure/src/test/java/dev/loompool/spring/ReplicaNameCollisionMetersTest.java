package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Two pools named alike stop the startup, since their meters would mix (PoolWiring). A replica's
 * pool is named {@code <pool>-replica-N}: an application pool of that very name (a reporting pool
 * named after the replica it reads, {@code orders-replica-1}) gets the same {@code pool} tag. The
 * registry then hands the second registration the first one's gauges, so one of the two pools is
 * read for both: a dashboard shows the wrong pool's numbers, and a full pool looks idle.
 */
class ReplicaNameCollisionMetersTest {

    @Configuration(proxyBeanMethods = false)
    static class APoolNamedLikeAnotherOnesReplica {
        @Bean(destroyMethod = "close")
        LoomPoolDataSource orders() {
            LoomPoolDataSource ds = new LoomPoolDataSource();
            ds.setJdbcUrl(LoomPoolAutoConfigurationTest.h2());
            ds.setPoolName("orders");
            ds.setMaxSize(2);
            ds.setReplicas(List.of(LoomPoolAutoConfigurationTest.h2()));
            ds.setReplicaMaxSize(3);
            return ds;
        }

        @Bean(destroyMethod = "close")
        LoomPoolDataSource reporting() {
            LoomPoolDataSource ds = new LoomPoolDataSource();
            ds.setJdbcUrl(LoomPoolAutoConfigurationTest.h2());
            ds.setPoolName("orders-replica-1");
            ds.setMinSize(1);
            ds.setMaxSize(7);
            return ds;
        }
    }

    /** The same pools, the one named like the replica declared (and wired) first. */
    @Configuration(proxyBeanMethods = false)
    static class TheReplicasNamesakeFirst {
        @Bean(destroyMethod = "close")
        LoomPoolDataSource reporting() {
            return new APoolNamedLikeAnotherOnesReplica().reporting();
        }

        @Bean(destroyMethod = "close")
        LoomPoolDataSource orders() {
            return new APoolNamedLikeAnotherOnesReplica().orders();
        }
    }

    @Test
    void theClashIsRefusedWhicheverPoolIsWiredFirst() {
        new ApplicationContextRunner()
                .withClassLoader(new FilteredClassLoader("org.crac"))
                .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class,
                        DataSourceAutoConfiguration.class))
                .withUserConfiguration(TheReplicasNamesakeFirst.class)
                .run(context -> assertThat(context.getStartupFailure()).hasStackTraceContaining("orders-replica-1")
                        .hasStackTraceContaining("replica-N"));
    }

    @Test
    void aPoolWithReplicasAndAnotherNamedApartStart() {
        new ApplicationContextRunner()
                .withClassLoader(new FilteredClassLoader("org.crac"))
                .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class,
                        DataSourceAutoConfiguration.class))
                .withUserConfiguration(TheReplicasNamesakeFirst.class)
                .withBean("reporting", LoomPoolDataSource.class, () -> {
                    LoomPoolDataSource ds = new APoolNamedLikeAnotherOnesReplica().reporting();
                    ds.setPoolName("orders-replica-2"); // orders has one replica only
                    return ds;
                })
                .withAllowBeanDefinitionOverriding(true)
                .run(context -> assertThat(context).hasNotFailed());
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withClassLoader(new FilteredClassLoader("org.crac"))
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class,
                    LoomPoolMetricsAutoConfiguration.class, DataSourceAutoConfiguration.class,
                    MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                    CompositeMeterRegistryAutoConfiguration.class))
            .withPropertyValues("loompool.metrics.hikari-compatible=true")
            .withUserConfiguration(APoolNamedLikeAnotherOnesReplica.class);

    @Test
    void aPoolNamedLikeAnotherPoolsReplicaIsRefusedAtStartup() {
        runner.run(context -> {
            if (context.getStartupFailure() == null) {
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                LoomPoolDataSource orders = (LoomPoolDataSource) context.getBean("orders");
                LoomPoolDataSource reporting = (LoomPoolDataSource) context.getBean("reporting");
                for (LoomPoolDataSource ds : List.of(orders, reporting)) {
                    try (Connection c = ds.getConnection()) {
                        c.setReadOnly(true); // orders: to its replica
                        try (Statement s = c.createStatement()) {
                            s.execute("SELECT 1");
                        }
                    }
                }
                assertThat(orders.getReplicaPools()).extracting(p -> p.name()).containsExactly("orders-replica-1");
                // one series for two pools: at most one of them can be read right
                assertThat(registry.find("hikaricp.connections.max").tag("pool", "orders-replica-1").gauges())
                        .as("series for the two pools named orders-replica-1 (the replica, max 3; reporting, max %d)",
                                reporting.getMaxSize())
                        .hasSize(2);
            }
            assertThat(context.getStartupFailure()).as("refused, as two data sources named alike are")
                    .hasStackTraceContaining("orders-replica-1");
        });
    }
}
