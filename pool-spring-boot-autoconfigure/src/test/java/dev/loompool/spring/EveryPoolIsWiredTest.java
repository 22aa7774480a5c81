package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * DESIGN.md §5, "every pool is wired": transaction pinning, meters, health and the endpoint reach
 * every {@link LoomPoolDataSource} bean, whoever made it and however many there are.
 */
@ExtendWith(OutputCaptureExtension.class)
class EveryPoolIsWiredTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                    LoomPoolAutoConfiguration.class, LoomPoolMetricsAutoConfiguration.class,
                    LoomPoolHealthAutoConfiguration.class, LoomPoolEndpointAutoConfiguration.class,
                    DataSourceAutoConfiguration.class, MetricsAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
            .withPropertyValues("management.endpoints.web.exposure.include=loompool");

    /** A pool on its own H2 database, named {@code name} unless null; not started. */
    static LoomPoolDataSource h2Pool(String name) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(LoomPoolAutoConfigurationTest.h2());
        if (name != null) {
            ds.setPoolName(name);
        }
        return ds;
    }

    @Configuration(proxyBeanMethods = false)
    static class OneUserPool {
        @Bean(destroyMethod = "close")
        LoomPoolDataSource ordersDataSource() {
            LoomPoolDataSource ds = h2Pool(null);
            ds.setMinSize(0);
            return ds;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoPoolsOneFromDataSourceBuilder {
        @Bean(destroyMethod = "close")
        LoomPoolDataSource orders() {
            return h2Pool("orders");
        }

        /** Declared as a plain DataSource, as DataSourceBuilder users write it. */
        @Bean
        DataSource reporting() {
            return DataSourceBuilder.create().type(LoomPoolDataSource.class)
                    .url(LoomPoolAutoConfigurationTest.h2()).username("sa").build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoPoolsNamedAlike {
        @Bean(destroyMethod = "close")
        LoomPoolDataSource first() {
            return h2Pool("same");
        }

        @Bean(destroyMethod = "close")
        LoomPoolDataSource second() {
            return h2Pool("same");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class StartedInItsBeanMethod {
        @Bean(destroyMethod = "close")
        LoomPoolDataSource eager() throws Exception {
            LoomPoolDataSource ds = h2Pool("eager");
            ds.start();
            return ds;
        }
    }

    @Test
    void aUserDefinedPoolGetsTransactionPinningMetersHealthAndTheEndpoint() {
        runner.withUserConfiguration(OneUserPool.class).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(DataSource.class);
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            assertThat(ds.getBindObserver()).isInstanceOf(SpringTransactionPinning.class);
            assertThat(ds.getPoolName()).as("an unnamed pool takes its bean's name").isEqualTo("ordersDataSource");
            try (Connection c = ds.getConnection()) {
                c.createStatement().execute("SELECT 1");
            }
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.find("db.client.connection.wait_time")
                    .tag(LoomPoolMeter.POOL_NAME, "ordersDataSource").timer().count())
                    .as("the pool listener reached the pool before it started").isEqualTo(1);
            HealthContributor health = context.getBean("loompoolHealthIndicator", HealthContributor.class);
            assertThat(((HealthIndicator) health).health().getDetails()).containsEntry("pool", "ordersDataSource");
            assertThat(context.getBean(LoomPoolEndpoint.class).pool("ordersDataSource")).isNotNull();
        });
    }

    @Test
    void twoPoolsOneBuiltWithDataSourceBuilderAreEachWiredUnderTheirOwnNames() {
        // Without org.crac: Boot's own HikariCheckpointRestoreLifecycle (HikariCP is on this class path)
        // takes the one DataSource and fails with two that are not @Primary, loompool or not.
        runner.withClassLoader(new FilteredClassLoader("org.crac"))
                .withUserConfiguration(TwoPoolsOneFromDataSourceBuilder.class).run(context -> {
            assertThat(context).hasNotFailed();
            Map<String, LoomPoolDataSource> pools = PoolWiring.pools(context);
            assertThat(pools).containsOnlyKeys("orders", "reporting");
            LoomPoolDataSource reporting = pools.get("reporting");
            assertThat(reporting.getUsername()).as("DataSourceBuilder set it").isEqualTo("sa");
            assertThat(reporting.getPoolName()).isEqualTo("reporting");
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            for (LoomPoolDataSource ds : pools.values()) {
                assertThat(ds.getBindObserver()).as(ds.getPoolName()).isInstanceOf(SpringTransactionPinning.class);
                try (Connection c = ds.getConnection()) {
                    c.createStatement().execute("SELECT 1");
                }
                assertThat(registry.find("db.client.connection.use_time")
                        .tag(LoomPoolMeter.POOL_NAME, ds.getPoolName()).timer().count()).as(ds.getPoolName())
                        .isEqualTo(1);
            }
            HealthContributor health = context.getBean("loompoolHealthIndicator", HealthContributor.class);
            assertThat(health).isInstanceOf(CompositeHealthContributor.class);
            CompositeHealthContributor composite = (CompositeHealthContributor) health;
            assertThat(((HealthIndicator) composite.getContributor("orders")).health().getStatus()).isEqualTo(Status.UP);
            pools.get("reporting").getPool().deactivate();
            assertThat(((HealthIndicator) composite.getContributor("reporting")).health().getStatus())
                    .isEqualTo(Status.DOWN);
            assertThat(context.getBean(LoomPoolEndpoint.class).pools()).extractingByKey("pools")
                    .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                    .containsOnlyKeys("orders", "reporting");
        });
    }

    @Test
    void aUserPoolIsWiredEvenWithDataSourceAutoConfigurationExcluded() {
        runner.withUserConfiguration(OneUserPool.class)
                .withPropertyValues("spring.autoconfigure.exclude=" + DataSourceAutoConfiguration.class.getName())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(LoomPoolDataSource.class).getBindObserver())
                            .isInstanceOf(SpringTransactionPinning.class);
                });
    }

    @Test
    void twoPoolsNamedAlikeStopTheStartupNamingTheName() {
        runner.withUserConfiguration(TwoPoolsNamedAlike.class).run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("Two loompools are named 'same'")
                .hasMessageContaining("bean 'second'"));
    }

    @Test
    void aPoolStartedInItsBeanMethodIsNamedInAWarningAndStillMeasured(CapturedOutput output) {
        runner.withUserConfiguration(StartedInItsBeanMethod.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(LoomPoolDataSource.class).getBindObserver()).isNull();
            assertThat(context.getBean(MeterRegistry.class).find("db.client.connection.max")
                    .tag(LoomPoolMeter.POOL_NAME, "eager").gauge()).isNotNull();
        });
        assertThat(output).contains("loompool 'eager' (bean 'eager') was started before Spring could wire it");
    }

    @Test
    void eachPoolSaysInOneLineWhenItStartsAndWhenItCloses(CapturedOutput output) {
        runner.withPropertyValues("spring.datasource.url=" + LoomPoolAutoConfigurationTest.h2(),
                "spring.datasource.username=sa", "spring.datasource.password=hunter2", "loompool.pool-name=orders",
                "loompool.max-size=3").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output).contains("loompool 'orders' started: jdbc:h2:mem:")
                            .contains("min-size 2, max-size 3, release mode STATEMENT")
                            .doesNotContain("loompool 'orders' closed");
                });
        assertThat(output).contains("loompool 'orders' closed").doesNotContain("hunter2");
    }
}
