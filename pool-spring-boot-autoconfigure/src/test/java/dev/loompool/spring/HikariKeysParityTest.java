package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.loompool.jdbc.LoomPoolDataSource;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * The same {@code spring.datasource.hikari.*} configuration, bound by Boot onto HikariCP 7.1
 * ({@code spring.datasource.type}) and applied by loompool: the pool must run with the settings
 * HikariCP would have had (HikariCP's own validation, {@code HikariConfig.validate()}, applied
 * first, as its pool does when it starts).
 */
class HikariKeysParityTest {

    private final String url = LoomPoolAutoConfigurationTest.h2();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                    LoomPoolAutoConfiguration.class, DataSourceAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + url);

    private HikariDataSource hikari(ApplicationContextRunner configured) {
        AtomicReference<HikariDataSource> hikari = new AtomicReference<>();
        configured.withPropertyValues("spring.datasource.type=" + HikariDataSource.class.getName()).run(context -> {
            assertThat(context).hasNotFailed();
            HikariDataSource ds = context.getBean(HikariDataSource.class);
            ds.validate();
            hikari.set(ds);
        });
        return hikari.get();
    }

    private LoomPoolDataSource loompool(ApplicationContextRunner configured) {
        AtomicReference<LoomPoolDataSource> loompool = new AtomicReference<>();
        configured.run(context -> {
            assertThat(context).hasNotFailed();
            loompool.set(context.getBean(LoomPoolDataSource.class));
        });
        return loompool.get();
    }

    @Test
    void everyKeyWithAnEquivalentRunsWithHikarisValue() {
        ApplicationContextRunner configured = runner.withPropertyValues("spring.datasource.hikari.maximumPoolSize=8",
                "spring.datasource.hikari.minimum-idle=3", "spring.datasource.hikari.connection-timeout=4000",
                "spring.datasource.hikari.idle-timeout=0", "spring.datasource.hikari.max-lifetime=0",
                "spring.datasource.hikari.leak-detection-threshold=2500",
                "spring.datasource.hikari.validation-timeout=1500", "spring.datasource.hikari.keepalive-time=60000",
                "spring.datasource.hikari.auto-commit=false", "spring.datasource.hikari.read-only=true",
                "spring.datasource.hikari.transaction-isolation=transaction_serializable",
                "spring.datasource.hikari.schema=PUBLIC", "spring.datasource.hikari.pool-name=orders",
                "spring.datasource.hikari.data-source-properties[a.b]=1",
                "spring.datasource.hikari.register-mbeans=false");
        HikariDataSource h = hikari(configured);
        LoomPoolDataSource l = loompool(configured);
        assertThat(l.getMaxSize()).isEqualTo(h.getMaximumPoolSize());
        assertThat(l.getMinSize()).isEqualTo(h.getMinimumIdle());
        assertThat(l.getAcquireTimeout()).isEqualTo(Duration.ofMillis(h.getConnectionTimeout()));
        assertThat(l.getIdleTimeout()).isEqualTo(Duration.ofMillis(h.getIdleTimeout()));
        assertThat(l.getMaxLifetime()).isEqualTo(Duration.ofMillis(h.getMaxLifetime()));
        assertThat(l.getLeakDetectionThreshold()).isEqualTo(Duration.ofMillis(h.getLeakDetectionThreshold()));
        assertThat(l.getValidationTimeout()).isEqualTo(Duration.ofMillis(h.getValidationTimeout()));
        assertThat(l.getHealthcheckInterval()).isEqualTo(Duration.ofMillis(h.getKeepaliveTime()));
        assertThat(l.getAutoCommit()).isEqualTo(h.isAutoCommit());
        assertThat(l.getReadOnly()).isEqualTo(h.isReadOnly());
        assertThat(l.getSchema()).isEqualTo(h.getSchema());
        assertThat(l.getPoolName()).isEqualTo(h.getPoolName());
        assertThat(l.getDataSourceProperties()).isEqualTo(h.getDataSourceProperties());
        assertThat(l.isRegisterMbeans()).isEqualTo(h.isRegisterMbeans());
        assertThat(dev.loompool.jdbc.internal.driver.Settings.isolationLevel(l.getTransactionIsolation()))
                .isEqualTo(java.sql.Connection.TRANSACTION_SERIALIZABLE);
    }

    @Test
    void hikariEnvironmentVariablesInHikarisOwnSpellingRunWithHikarisValues() {
        ApplicationContextRunner configured = runner.withInitializer(context -> context.getEnvironment()
                .getPropertySources().addFirst(new SystemEnvironmentPropertySource("test-systemEnvironment", Map.of(
                        "SPRING_DATASOURCE_HIKARI_MAXIMUMPOOLSIZE", "6", "SPRING_DATASOURCE_HIKARI_MINIMUMIDLE", "1",
                        "SPRING_DATASOURCE_HIKARI_IDLETIMEOUT", "90000", "SPRING_DATASOURCE_HIKARI_AUTOCOMMIT", "false",
                        "SPRING_DATASOURCE_HIKARI_LEAK_DETECTION_THRESHOLD", "3000"))));
        HikariDataSource h = hikari(configured);
        LoomPoolDataSource l = loompool(configured);
        assertThat(l.getMaxSize()).isEqualTo(h.getMaximumPoolSize()).isEqualTo(6);
        assertThat(l.getMinSize()).isEqualTo(h.getMinimumIdle()).isEqualTo(1);
        assertThat(l.getIdleTimeout()).isEqualTo(Duration.ofMillis(h.getIdleTimeout()));
        assertThat(l.getAutoCommit()).isEqualTo(h.isAutoCommit()).isFalse();
        assertThat(l.getLeakDetectionThreshold()).isEqualTo(Duration.ofMillis(h.getLeakDetectionThreshold()));
    }

    @Test
    void aYamlGroupLeftEmptyStartsAsUnderHikari() {
        // application.yml with every entry under data-source-properties commented out: Boot reads the key as "".
        ApplicationContextRunner configured = runner.withPropertyValues("spring.datasource.hikari.data-source-properties=",
                "spring.datasource.hikari.maximum-pool-size=5");
        HikariDataSource h = hikari(configured);
        LoomPoolDataSource l = loompool(configured);
        assertThat(l.getMaxSize()).isEqualTo(h.getMaximumPoolSize());
        assertThat(l.getDataSourceProperties()).isEqualTo(h.getDataSourceProperties());
    }

    @Test
    void aDeadDatabaseFailureNamesNoPasswordGivenThroughHikariKeys() {
        runner.withPropertyValues("spring.datasource.url=jdbc:postgresql://127.0.0.1:1/test?user=app&password=hunter2url",
                "spring.datasource.hikari.data-source-properties.password=hunter2prop",
                "loompool.initialization-fail-timeout=0").run(context -> {
                    assertThat(context).hasFailed();
                    java.io.StringWriter trace = new java.io.StringWriter();
                    context.getStartupFailure().printStackTrace(new java.io.PrintWriter(trace));
                    assertThat(trace.toString()).doesNotContain("hunter2");
                    org.springframework.boot.diagnostics.FailureAnalysis analysis =
                            new LoomPoolFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription() + analysis.getAction()).doesNotContain("hunter2");
                });
    }

    @Test
    void anApplicationThatStartedWithItsDatabaseDownUnderHikariStillStarts() {
        ApplicationContextRunner configured = runner.withPropertyValues(
                "spring.datasource.url=jdbc:postgresql://127.0.0.1:1/test", "spring.datasource.hikari.maximum-pool-size=5");
        configured.withPropertyValues("spring.datasource.type=" + HikariDataSource.class.getName()).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(HikariDataSource.class).isRunning()).as("not started until first use").isFalse();
        });
        configured.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(LoomPoolDataSource.class).getInitialConnectError()).as("it tried").isNotNull();
        });
    }

    @Test
    void minimumIdleUnsetIsAFixedSizePoolEvenWhenMaximumPoolSizeIsUnset() {
        ApplicationContextRunner configured = runner.withPropertyValues("spring.datasource.hikari.connection-timeout=5000");
        HikariDataSource h = hikari(configured);
        LoomPoolDataSource l = loompool(configured);
        assertThat(l.getMaxSize()).isEqualTo(h.getMaximumPoolSize());
        assertThat(l.getMinSize()).isEqualTo(h.getMinimumIdle());
    }

    @Test
    void hikarisOwnConnectionKeysDecideWhereThePoolConnects() {
        ApplicationContextRunner configured = runner.withPropertyValues(
                "spring.datasource.hikari.jdbc-url=" + LoomPoolAutoConfigurationTest.h2(),
                "spring.datasource.username=readonly", "spring.datasource.hikari.username=sa",
                "spring.datasource.hikari.password=");
        HikariDataSource h = hikari(configured);
        LoomPoolDataSource l = loompool(configured);
        assertThat(h.getJdbcUrl()).isNotEqualTo(url);
        assertThat(l.getJdbcUrl()).isEqualTo(h.getJdbcUrl());
        assertThat(l.getUsername()).isEqualTo(h.getUsername()).isEqualTo("sa");
    }
}
