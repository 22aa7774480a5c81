package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Boot 4's way to add a second pool ({@code @Bean(defaultCandidate = false)}) keeps the
 * auto-configured one: the auto-configured pool takes {@code spring.datasource.hikari.*}, the
 * application's own pool takes none of them, as with HikariCP.
 */
class HikariKeysMultipleDataSourcesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                    LoomPoolAutoConfiguration.class, DataSourceAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + LoomPoolAutoConfigurationTest.h2(),
                    "app.datasource.second.jdbc-url=" + LoomPoolAutoConfigurationTest.h2(),
                    "app.datasource.second.pool-name=second");

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties
    static class SecondPool {

        @Bean(defaultCandidate = false, destroyMethod = "close")
        @Qualifier("second")
        @ConfigurationProperties("app.datasource.second")
        LoomPoolDataSource secondDataSource() {
            return new LoomPoolDataSource();
        }
    }

    @Test
    void theAutoConfiguredPoolTakesTheHikariKeysAndTheApplicationsSecondPoolNone() {
        runner.withUserConfiguration(SecondPool.class)
                .withPropertyValues("spring.datasource.hikari.maximum-pool-size=7", "spring.datasource.hikari.auto-commit=false",
                        "spring.datasource.hikari.pool-name=primary", "loompool.idle-timeout=3m")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LoomPoolDataSource primary = (LoomPoolDataSource) context.getBean(DataSource.class);
                    LoomPoolDataSource second = context.getBean("secondDataSource", LoomPoolDataSource.class);
                    assertThat(primary).isNotSameAs(second);
                    assertThat(primary.getPoolName()).isEqualTo("primary");
                    assertThat(primary.getMaxSize()).isEqualTo(7);
                    assertThat(primary.getAutoCommit()).isFalse();
                    assertThat(second.getPoolName()).isEqualTo("second");
                    assertThat(second.getMaxSize()).as("no hikari key on the application's pool").isEqualTo(10);
                    assertThat(second.getAutoCommit()).isNotEqualTo(Boolean.FALSE);
                    assertThat(second.getIdleTimeout()).as("nor a loompool key").isNotEqualTo(java.time.Duration.ofMinutes(3));
                });
    }
}
