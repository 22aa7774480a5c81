package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.loompool.jdbc.LoomPoolDataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ClassPathResource;

/**
 * An application that switches from HikariCP keeps its {@code spring.datasource.hikari.*} keys and
 * runs with the same settings; a {@code loompool.*} key wins where both are set, and one INFO line
 * says what was taken (DESIGN.md §5, "From HikariCP without touching a line").
 */
@ExtendWith(OutputCaptureExtension.class)
class ComingFromHikariTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class, DataSourceAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + LoomPoolAutoConfigurationTest.h2());

    @Test
    void aTypicalHikariConfigurationRunsWithExactlyItsSettings() {
        runner.withPropertyValues("spring.datasource.hikari.maximum-pool-size=7",
                "spring.datasource.hikari.minimum-idle=3",
                "spring.datasource.hikari.connection-timeout=5000", // HikariCP's unit: milliseconds
                "spring.datasource.hikari.idle-timeout=120000",
                "spring.datasource.hikari.max-lifetime=1200000",
                "spring.datasource.hikari.leak-detection-threshold=4000",
                "spring.datasource.hikari.pool-name=orders",
                "spring.datasource.hikari.connection-init-sql=SET @ORIGIN = 'hikari'").run(context -> {
                    assertThat(context).hasNotFailed();
                    LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
                    assertThat(ds.isRunning()).isTrue();
                    assertThat(ds.getMaxSize()).isEqualTo(7);
                    assertThat(ds.getMinSize()).isEqualTo(3);
                    assertThat(ds.getAcquireTimeout()).isEqualTo(Duration.ofSeconds(5));
                    assertThat(ds.getIdleTimeout()).isEqualTo(Duration.ofMinutes(2));
                    assertThat(ds.getMaxLifetime()).isEqualTo(Duration.ofMinutes(20));
                    assertThat(ds.getLeakDetectionThreshold()).isEqualTo(Duration.ofSeconds(4));
                    assertThat(ds.getPoolName()).isEqualTo("orders");
                    assertThat(ds.getConnectionInitSql()).isEqualTo("SET @ORIGIN = 'hikari'");
                    assertThat(ds.getPool().stats().total()).as("min-size opened at start").isEqualTo(3);
                });
    }

    @Test
    void aHikariApplicationYmlWithItsNumbersRunsWithItsSettings() {
        runner.withInitializer(context -> {
            try {
                new YamlPropertySourceLoader().load("application.yml", new ClassPathResource("hikari-application.yml"))
                        .forEach(context.getEnvironment().getPropertySources()::addLast);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }).run(context -> {
            assertThat(context).hasNotFailed();
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            assertThat(ds.getPoolName()).isEqualTo("billing");
            assertThat(ds.getMaxSize()).isEqualTo(6);
            assertThat(ds.getMinSize()).isEqualTo(2);
            assertThat(ds.getAcquireTimeout()).isEqualTo(Duration.ofSeconds(3));
            assertThat(ds.getIdleTimeout()).isEqualTo(Duration.ofMinutes(5));
            assertThat(ds.getMaxLifetime()).isEqualTo(Duration.ofMinutes(15));
            assertThat(ds.getLeakDetectionThreshold()).isEqualTo(Duration.ofSeconds(20));
            assertThat(ds.getConnectionInitSql()).isEqualTo("SET @BILLING = 1");
            assertThat(ds.getDataSourceProperties()).containsEntry("cachePrepStmts", "true")
                    .containsEntry("prepStmtCacheSize", "250");
        });
    }

    @Test
    void theSessionDefaultsDriverPropertiesAndTheOtherKeysAreTakenToo() {
        runner.withPropertyValues("spring.datasource.hikari.keepalive-time=45s", // Boot's Duration form is accepted too
                "spring.datasource.hikari.validationTimeout=2000", // relaxed binding: any spelling counts
                "spring.datasource.hikari.auto-commit=false",
                "spring.datasource.hikari.transaction-isolation=TRANSACTION_READ_COMMITTED",
                "spring.datasource.hikari.read-only=true",
                "spring.datasource.hikari.schema=PUBLIC",
                "spring.datasource.hikari.data-source-properties.cachePrepStmts=true",
                "spring.datasource.hikari.initialization-fail-timeout=60000").run(context -> {
                    assertThat(context).hasNotFailed();
                    LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
                    assertThat(ds.getHealthcheckInterval()).isEqualTo(Duration.ofSeconds(45));
                    assertThat(ds.getValidationTimeout()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(ds.getAutoCommit()).isFalse();
                    assertThat(ds.getTransactionIsolation()).isEqualTo("TRANSACTION_READ_COMMITTED");
                    assertThat(ds.getReadOnly()).isTrue();
                    assertThat(ds.getSchema()).isEqualTo("PUBLIC");
                    assertThat(ds.getDataSourceProperties()).containsEntry("cachePrepStmts", "true");
                    assertThat(ds.getInitializationFailTimeout()).isEqualTo(Duration.ofMinutes(1));
                });
    }

    @Test
    void hikariKeysAsEnvironmentVariablesAreTakenAndALoompoolOneWins(CapturedOutput output) {
        runner.withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                new SystemEnvironmentPropertySource("test-systemEnvironment", Map.of(
                        "SPRING_DATASOURCE_HIKARI_MAXIMUM_POOL_SIZE", "9", "SPRING_DATASOURCE_HIKARI_CONNECTIONTIMEOUT", "7000",
                        "SPRING_DATASOURCE_HIKARI_POOLNAME", "hikari-name", "LOOMPOOL_POOL_NAME", "loom-name"))))
                .run(context -> {
                    LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
                    assertThat(ds.getMaxSize()).isEqualTo(9);
                    assertThat(ds.getAcquireTimeout()).isEqualTo(Duration.ofSeconds(7));
                    assertThat(ds.getPoolName()).isEqualTo("loom-name");
                    assertThat(hikariLine(output)).contains("spring.datasource.hikari.maximum-pool-size as loompool.max-size")
                            .contains("spring.datasource.hikari.connection-timeout as loompool.acquire-timeout")
                            .contains("spring.datasource.hikari.pool-name (loompool.pool-name is set)");
                });
    }

    @Test
    void hikariMinimumIdleDefaultsToMaximumPoolSizeAsInHikari(CapturedOutput output) {
        runner.withPropertyValues("spring.datasource.hikari.maximum-pool-size=4").run(context -> {
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            assertThat(ds.getMaxSize()).isEqualTo(4);
            assertThat(ds.getMinSize()).as("HikariCP's minimum-idle is maximum-pool-size unless set").isEqualTo(4);
            assertThat(hikariLine(output)).contains("spring.datasource.hikari.maximum-pool-size as loompool.max-size"
                    + " (and loompool.min-size, as HikariCP's unset minimum-idle)");
        });
        runner.withPropertyValues("spring.datasource.hikari.maximum-pool-size=4", "loompool.min-size=1").run(context ->
                assertThat(context.getBean(LoomPoolDataSource.class).getMinSize()).isEqualTo(1));
        runner.withPropertyValues("spring.datasource.hikari.minimum-idle=12").run(context ->
                assertThat(context.getBean(LoomPoolDataSource.class).getMinSize())
                        .as("above maximum-pool-size, lowered to it as HikariCP does").isEqualTo(10));
    }

    @Test
    void hikariInitializationFailTimeoutIsMappedToLoompoolsMeaning() {
        // Under Boot HikariCP starts at first use: 1 (its default), 0 and below never stop the application's start.
        for (String value : new String[] {"1", "0", "-1"}) {
            runner.withPropertyValues("spring.datasource.hikari.initialization-fail-timeout=" + value).run(context ->
                    assertThat(context.getBean(LoomPoolDataSource.class).getInitializationFailTimeout()).isNegative());
        }
        runner.withPropertyValues("spring.datasource.hikari.initialization-fail-timeout=2").run(context ->
                assertThat(context.getBean(LoomPoolDataSource.class).getInitializationFailTimeout())
                        .isEqualTo(Duration.ofMillis(2)));
    }

    @Test
    void anApplicationConfiguredForHikariStartsWithoutTheDatabaseUnlessLoompoolSaysOtherwise(CapturedOutput output) {
        runner.withPropertyValues("spring.datasource.hikari.maximum-pool-size=4").run(context -> {
            assertThat(context.getBean(LoomPoolDataSource.class).getInitializationFailTimeout()).isNegative();
            assertThat(hikariLine(output)).contains("loompool.initialization-fail-timeout = -1ms, as HikariCP under"
                    + " Spring Boot starts at first use");
        });
        runner.withPropertyValues("spring.datasource.hikari.maximum-pool-size=4", "loompool.initialization-fail-timeout=0")
                .run(context -> assertThat(context.getBean(LoomPoolDataSource.class).getInitializationFailTimeout()).isZero());
        runner.run(context -> assertThat(context.getBean(LoomPoolDataSource.class).getInitializationFailTimeout())
                .as("no HikariCP key: loompool's own default").isZero());
    }

    @Test
    void aLoompoolKeyWinsOverItsHikariEquivalent(CapturedOutput output) {
        runner.withPropertyValues("spring.datasource.hikari.maximum-pool-size=20", "loompool.max-size=4",
                "spring.datasource.hikari.pool-name=hikari-name",
                "loompool.pool-name=loom-name").run(context -> {
                    LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
                    assertThat(ds.getMaxSize()).isEqualTo(4);
                    assertThat(ds.getMinSize()).as("loompool's default, not HikariCP's").isEqualTo(2);
                    assertThat(ds.getPoolName()).isEqualTo("loom-name");
                    assertThat(hikariLine(output)).contains("overridden by loompool keys: "
                            + "spring.datasource.hikari.maximum-pool-size (loompool.max-size is set)");
                });
    }

    @Test
    void oneInfoLineSaysWhatWasTakenAndOneWarningWhatHasNoEquivalent(CapturedOutput output) {
        runner.withPropertyValues("spring.datasource.hikari.maximum-pool-size=20",
                "spring.datasource.hikari.connectionTimeout=5000",
                "spring.datasource.hikari.data-source-properties.cachePrepStmts=true",
                "spring.datasource.hikari.register-mbeans=false",
                "spring.datasource.hikari.pool-name=orders",
                "spring.datasource.hikari.minimum-idle=2", "loompool.min-size=1",
                "spring.datasource.hikari.allow-pool-suspension=true",
                "spring.datasource.hikari.jdbc-url=jdbc:h2:mem:elsewhere",
                "spring.datasource.hikari.password=hunter2").run(context -> {
                    assertThat(context).hasNotFailed();
                    List<String> lines = output.getOut().lines().filter(l -> l.contains("spring.datasource.hikari.")).toList();
                    assertThat(lines).hasSize(2);
                    String info = lines.stream().filter(l -> l.contains(" INFO ")).findFirst().orElseThrow();
                    assertThat(info).contains("loompool 'orders' takes these HikariCP settings: "
                            + "spring.datasource.hikari.connection-timeout as loompool.acquire-timeout, "
                            + "spring.datasource.hikari.data-source-properties as loompool.data-source-properties, "
                            + "spring.datasource.hikari.jdbc-url as the connection's URL, "
                            + "spring.datasource.hikari.maximum-pool-size as loompool.max-size, "
                            + "spring.datasource.hikari.password as the connection's password, "
                            + "spring.datasource.hikari.pool-name as loompool.pool-name, "
                            + "spring.datasource.hikari.register-mbeans as loompool.register-mbeans, "
                            + "loompool.initialization-fail-timeout = -1ms, as HikariCP under Spring Boot starts at first use"
                            + " (set it to 0 to stop the start while the database is down); "
                            + "overridden by loompool keys: spring.datasource.hikari.minimum-idle (loompool.min-size is set)");
                    String warn = lines.stream().filter(l -> l.contains(" WARN ")).findFirst().orElseThrow();
                    assertThat(warn).contains("loompool 'orders' ignores these HikariCP settings, which have no loompool "
                            + "equivalent: spring.datasource.hikari.allow-pool-suspension");
                    assertThat(output.getOut()).doesNotContain("hunter2");
                });
    }

    @Test
    void aHikariValueLoompoolRefusesFailsStartupNamingTheHikariKey() {
        runner.withPropertyValues("spring.datasource.hikari.maximum-pool-size=0").run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new LoomPoolFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("spring.datasource.hikari.maximum-pool-size")
                    .contains("from property source").contains("loompool.max-size").contains("maxSize must be >= 1, was 0");
            assertThat(analysis.getAction()).contains("spring.datasource.hikari.maximum-pool-size");
        });
        runner.withPropertyValues("spring.datasource.hikari.transaction-isolation=TRANSACTION_SOMETIMES").run(context -> {
            FailureAnalysis analysis = new LoomPoolFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("spring.datasource.hikari.transaction-isolation")
                    .contains("READ_COMMITTED");
        });
    }

    @Test
    void aPoolTheApplicationDefinesDoesNotTakeHikariKeysAsWithHikari(CapturedOutput output) {
        runner.withPropertyValues("spring.datasource.hikari.maximum-pool-size=7")
                .withBean("dataSource", LoomPoolDataSource.class, () -> {
                    LoomPoolDataSource ds = new LoomPoolDataSource();
                    ds.setJdbcUrl(LoomPoolAutoConfigurationTest.h2());
                    return ds;
                }).run(context -> {
                    assertThat(context.getBean(LoomPoolDataSource.class).getMaxSize()).isEqualTo(10);
                    assertThat(output.getOut()).doesNotContain("HikariCP settings");
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

    private static String hikariLine(CapturedOutput output) {
        return output.getOut().lines().filter(l -> l.contains("takes these HikariCP settings")).reduce("", String::concat);
    }
}
