package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.loompool.jdbc.LoomPoolDataSource;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

/** The user's explicit choices win over the starter, as they do over Boot's own pools (DESIGN.md §5). */
class ExplicitChoicesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class, DataSourceAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + LoomPoolAutoConfigurationTest.h2());

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration(exclude = DataSourceAutoConfiguration.class)
    static class ExcludingDataSourceAutoConfiguration {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class EverythingAutoConfigured {
    }

    @Test
    void excludingDataSourceAutoConfigurationOnTheApplicationMeansNoAutoConfiguredDataSource() {
        new ApplicationContextRunner().withUserConfiguration(ExcludingDataSourceAutoConfiguration.class)
                .withPropertyValues("spring.datasource.url=" + LoomPoolAutoConfigurationTest.h2())
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(DataSource.class));
    }

    @Test
    void excludingDataSourceAutoConfigurationByPropertyMeansNoAutoConfiguredDataSource() {
        new ApplicationContextRunner().withUserConfiguration(EverythingAutoConfigured.class)
                .withPropertyValues("spring.datasource.url=" + LoomPoolAutoConfigurationTest.h2(),
                        "spring.autoconfigure.exclude=" + DataSourceAutoConfiguration.class.getName())
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(DataSource.class));
    }

    @Test
    void withNothingExcludedTheFullAutoConfigurationGivesLoomPool() {
        new ApplicationContextRunner().withUserConfiguration(EverythingAutoConfigured.class)
                .withPropertyValues("spring.datasource.url=" + LoomPoolAutoConfigurationTest.h2())
                .run(context -> assertThat(context).hasSingleBean(DataSource.class)
                        .getBean(DataSource.class).isInstanceOf(LoomPoolDataSource.class));
    }

    @Test
    void aDataSourceTypeNamingAnotherPoolGivesThatPool() {
        runner.withPropertyValues("spring.datasource.type=" + HikariDataSource.class.getName()).run(context -> {
            assertThat(context).hasSingleBean(DataSource.class).doesNotHaveBean(LoomPoolDataSource.class);
            assertThat(context.getBean(DataSource.class)).isInstanceOf(HikariDataSource.class);
        });
    }

    @Test
    void aDataSourceTypeNamingLoomPoolGivesLoomPoolFullyWired() {
        runner.withPropertyValues("spring.datasource.type=" + LoomPoolDataSource.class.getName(),
                "loompool.max-size=3").run(context -> {
                    assertThat(context).hasSingleBean(DataSource.class);
                    LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
                    assertThat(ds.isRunning()).isTrue();
                    assertThat(ds.getMaxSize()).as("loompool.* applies").isEqualTo(3);
                    assertThat(ds.getBindObserver()).as("Spring transactions pin").isNotNull();
                });
    }
}
