package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Issue 30: an application whose database is down when it starts (a PostgreSQL URL on a port where
 * nothing listens), under loompool.initialization-fail-timeout's default and a negative value.
 */
class DatabaseDownAtStartupTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class,
                    LoomPoolHealthAutoConfiguration.class, DataSourceAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=jdbc:postgresql://127.0.0.1:1/test?user=postgres",
                    "loompool.pool-name=orders", "loompool.min-size=2", "loompool.acquire-timeout=2s");

    @Test
    void byDefaultTheStartupFailsAndTheAdviceNamesTheKeysThatStartWithoutTheDatabase() {
        runner.run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new LoomPoolFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("pool 'orders'").contains("127.0.0.1:1");
            assertThat(analysis.getAction()).contains("loompool.initialization-fail-timeout=-1ms")
                    .contains("loompool.min-size=0").contains("loompool.initialization-fail-timeout to how long");
        });
    }

    @Test
    void aPositiveTimeoutFailsTheStartupOnceItHasPassedSayingHowLongItTried() {
        runner.withPropertyValues("loompool.initialization-fail-timeout=1s").run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new LoomPoolFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("initializationFailTimeout=1000 ms").contains("attempts over");
        });
    }

    @Test
    void aNegativeTimeoutStartsTheContextAndHealthIsDownWithTheConnectError() {
        runner.withPropertyValues("loompool.initialization-fail-timeout=-1ms").run(context -> {
            assertThat(context).hasNotFailed();
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            assertThat(ds.isRunning()).isTrue();
            Health health = context.getBean(LoomPoolHealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.getDetails()).containsEntry("pool", "orders").containsEntry("connections", 0);
            assertThat(health.getDetails().get("lastConnectError")).asString().contains("127.0.0.1:1")
                    .contains("refused");
        });
    }
}
