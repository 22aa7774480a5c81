package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** An application that switches from HikariCP is told which of its keys loompool ignores, and what to use. */
@ExtendWith(OutputCaptureExtension.class)
class ComingFromHikariTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class, DataSourceAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + LoomPoolAutoConfigurationTest.h2(), "loompool.pool-name=orders");

    @Test
    void eachIgnoredHikariKeyIsNamedInOneWarningWithItsLoompoolKey(CapturedOutput output) {
        runner.withPropertyValues("spring.datasource.hikari.maximum-pool-size=20",
                "spring.datasource.hikari.connectionTimeout=5000", // relaxed binding: any spelling counts
                "spring.datasource.hikari.data-source-properties.cachePrepStmts=true",
                "spring.datasource.hikari.register-mbeans=true",
                "spring.datasource.hikari.allow-pool-suspension=true").run(context -> {
                    assertThat(context).hasNotFailed();
                    String warnings = output.getOut().lines().filter(l -> l.contains("ignores these HikariCP settings"))
                            .reduce("", String::concat);
                    assertThat(warnings).contains("pool 'orders'")
                            .contains("spring.datasource.hikari.maximum-pool-size (use loompool.max-size)")
                            .contains("spring.datasource.hikari.connection-timeout (use loompool.acquire-timeout)")
                            .contains("spring.datasource.hikari.data-source-properties (use loompool.data-source-properties)")
                            .contains("spring.datasource.hikari.register-mbeans (use loompool.register-mbeans)")
                            .contains("spring.datasource.hikari.allow-pool-suspension (no loompool equivalent)");
                    assertThat(output.getOut().lines().filter(l -> l.contains("ignores these HikariCP settings")))
                            .as("one line").hasSize(1);
                });
    }

    @Test
    void withoutHikariKeysNothingIsSaid(CapturedOutput output) {
        runner.run(context -> assertThat(output.getOut()).doesNotContain("HikariCP settings"));
    }

    @Test
    void whenHikariIsTheChosenPoolItsKeysAreItsOwn(CapturedOutput output) {
        runner.withPropertyValues("spring.datasource.type=" + HikariDataSource.class.getName(),
                "spring.datasource.hikari.maximum-pool-size=3").run(context -> {
                    assertThat(context.getBean(HikariDataSource.class).getMaximumPoolSize()).isEqualTo(3);
                    assertThat(output.getOut()).doesNotContain("HikariCP settings");
                });
    }
}
