package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.env.ConfigTreePropertySource;
import org.springframework.boot.env.RandomValuePropertySource;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertiesPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.SimpleCommandLinePropertySource;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * The unknown-key check against every place a Boot application takes keys from: a correct key, in
 * any form and from any source, must start; a misspelled one must stop the startup naming the key,
 * never its value.
 */
class UnknownKeysSourcesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                    LoomPoolAutoConfiguration.class, DataSourceAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + LoomPoolAutoConfigurationTest.h2());

    @TempDir
    Path dir;

    private ApplicationContextRunner with(PropertySource<?> source) {
        return runner.withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(source));
    }

    private static String description(AssertableApplicationContext context) {
        assertThat(context).hasFailed();
        FailureAnalysis analysis = new LoomPoolFailureAnalyzer().analyze(context.getStartupFailure());
        assertThat(analysis).isNotNull();
        return analysis.getDescription() + " / " + analysis.getAction();
    }

    @Test
    void keysFromSpringApplicationJsonCommandLineAndSystemPropertiesStart() {
        with(new MapPropertySource("spring.application.json", Map.of("loompool.max-size", 5,
                "loompool.circuit-breaker.failure-threshold", 4, "loompool.metrics.hikari-compatible", true,
                "loompool.data-source-properties.ssl-mode", "disable")))
                .withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                        new SimpleCommandLinePropertySource("--debug", "--loompool.minSize=1", "--loompool.pool-name=cli")))
                .withInitializer(context -> {
                    Properties system = new Properties();
                    system.setProperty("loompool.idleTimeout", "3m");
                    system.setProperty("loompool.dataSourceProperties[sslfactory.arg]", "x");
                    context.getEnvironment().getPropertySources().addLast(new PropertiesPropertySource("test-system", system));
                }).run(context -> {
                    assertThat(context).hasNotFailed();
                    LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
                    assertThat(ds.getMaxSize()).isEqualTo(5);
                    assertThat(ds.getMinSize()).isEqualTo(1);
                    assertThat(ds.getPoolName()).isEqualTo("cli");
                    assertThat(ds.getIdleTimeout()).isEqualTo(Duration.ofMinutes(3));
                    assertThat(ds.getCircuitBreakerFailureThreshold()).isEqualTo(4);
                    assertThat(ds.getDataSourceProperties()).containsEntry("ssl-mode", "disable")
                            .containsEntry("sslfactory.arg", "x");
                });
    }

    @Test
    void otherToolsLoompoolEnvironmentVariablesDoNotStopTheStartup() {
        // Kubernetes service links for a service named loompool, an installer's, a CI's variables.
        with(new SystemEnvironmentPropertySource("test-systemEnvironment", Map.of("LOOMPOOL_PORT", "tcp://10.0.0.7:5432",
                "LOOMPOOL_SERVICE_HOST", "10.0.0.7", "LOOMPOOL_SERVICE_PORT", "5432",
                "LOOMPOOL_PORT_5432_TCP_ADDR", "10.0.0.7", "LOOMPOOL_PORT_5432_TCP_PROTO", "tcp",
                "LOOMPOOL_HOME", "/opt/loompool", "LOOMPOOL_VERSION", "1.4.0", "LOOMPOOL_LOG_LEVEL", "debug",
                "LOOMPOOL_TEST_MARIADB_URL", "jdbc:mariadb://ci/test"))).run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aRandomValueAndAConfigTreeStartAndAMisspellingInAConfigTreeFailsWithoutItsValue() throws IOException {
        Files.createDirectories(dir.resolve("loompool"));
        Files.writeString(dir.resolve("loompool/max-size"), "6");
        runner.withPropertyValues("loompool.pool-name=p-${random.uuid}")
                .withInitializer(context -> context.getEnvironment().getPropertySources()
                        .addLast(new RandomValuePropertySource()))
                .withInitializer(context -> context.getEnvironment().getPropertySources()
                        .addFirst(new ConfigTreePropertySource("configtree", dir)))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
                    assertThat(ds.getMaxSize()).isEqualTo(6);
                    assertThat(ds.getPoolName()).startsWith("p-").hasSizeGreaterThan(30);
                });
        Files.writeString(dir.resolve("loompool/passwrod"), "s3cret-in-a-file");
        runner.withInitializer(context -> context.getEnvironment().getPropertySources()
                .addFirst(new ConfigTreePropertySource("configtree", dir))).run(context ->
                        assertThat(description(context)).contains("loompool.passwrod is not a loompool key")
                                .doesNotContain("s3cret"));
    }

    @Test
    void aYamlGroupWhoseEntriesAreAllCommentedOutStarts() {
        // loompool:\n  circuit-breaker:\n    # failure-threshold: 5  -- Boot's YAML loader reads the group as "".
        runner.withPropertyValues("loompool.max-size=4", "loompool.data-source-properties=", "loompool.replicas=")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(LoomPoolDataSource.class).getMaxSize()).isEqualTo(4);
                });
    }

    @Test
    void anEmptiedNestedGroupStarts() {
        String yaml = "loompool:\n  max-size: 4\n  circuit-breaker:\n#    failure-threshold: 5\n  metrics:\n"
                + "#    hikari-compatible: true\n";
        runner.withInitializer(context -> {
            try {
                new org.springframework.boot.env.YamlPropertySourceLoader().load("application.yml",
                        new org.springframework.core.io.ByteArrayResource(yaml.getBytes(), "application.yml"))
                        .forEach(context.getEnvironment().getPropertySources()::addFirst);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }).run(context -> {
            assertThat(context.getEnvironment().getProperty("loompool.circuit-breaker")).isEmpty(); // as Boot reads it
            assertThat(context).hasNotFailed();
        });
    }

    @Test
    void listAndMapEntriesInEveryFormStart() {
        String replica = LoomPoolAutoConfigurationTest.h2();
        with(new SystemEnvironmentPropertySource("test-systemEnvironment", Map.of("LOOMPOOL_REPLICAS_0", replica,
                "LOOMPOOL_DATA_SOURCE_PROPERTIES_SSLMODE", "disable", "LOOMPOOL_METRICS_HIKARICOMPATIBLE", "false",
                "LOOMPOOL_FAILONUNKNOWNKEYS", "true")))
                .withPropertyValues("loompool.data-source-properties.[ApplicationName]=app").run(context -> {
                    assertThat(context).hasNotFailed();
                    LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
                    assertThat(ds.getReplicas()).containsExactly(replica);
                    assertThat(ds.getDataSourceProperties()).containsEntry("ApplicationName", "app");
                });
    }

    @Test
    void aKeyInAnyRelaxedSpellingBootBindsIsAppliedNotJustAccepted() {
        runner.withPropertyValues("loompool.circuitbreaker.failure-threshold=7", "loompool.circuit_breaker.open_duration=9s",
                "loompool.METRICS.hikari-compatible=false").run(context -> {
                    assertThat(context).hasNotFailed();
                    LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
                    assertThat(ds.getCircuitBreakerFailureThreshold()).isEqualTo(7);
                    assertThat(ds.getCircuitBreakerOpenDuration()).isEqualTo(Duration.ofSeconds(9));
                });
    }

    @Test
    void aReplicaWrittenAsANamedEntryOfTheListIsAppliedOrRefusedNeverIgnored() {
        String replica = LoomPoolAutoConfigurationTest.h2();
        for (String key : new String[] {"loompool.replicas.url", "loompool.replicas.primary-reader"}) {
            runner.withPropertyValues(key + "=" + replica).run(context -> {
                if (context.getStartupFailure() == null) {
                    assertThat(context.getBean(LoomPoolDataSource.class).getReplicas()).as(key).containsExactly(replica);
                } else {
                    assertThat(description(context)).contains(key);
                }
            });
        }
    }

    @Test
    void aKeyWithAStrayCharacterIsAppliedOrRefusedNeverIgnored() {
        // a YAML key quoted with a trailing space, a key pasted with a non-breaking space
        for (String key : new String[] {"loompool.max-size ", "loompool.max-size\u00a0", "loompool.max\u2010size"}) {
            with(new MapPropertySource("application.yml", Map.of(key, "5"))).run(context -> {
                if (context.getStartupFailure() == null) {
                    assertThat(context.getBean(LoomPoolDataSource.class).getMaxSize()).as("[" + key + "]").isEqualTo(5);
                } else {
                    assertThat(description(context)).contains("loompool.max");
                }
            });
        }
    }

    @Test
    void aMisspelledMetricsKeyFailsNamingTheKeyMeant() {
        runner.withPropertyValues("loompool.metric.hikari-compatible=true").run(context ->
                assertThat(description(context)).contains("loompool.metric.hikari-compatible is not a loompool key")
                        .contains("did you mean loompool.metrics.hikari-compatible?"));
    }

    @Test
    void aSecretUnderAMisspelledOrWrongKeyIsNeverShownWhereverItCameFrom() {
        with(new MapPropertySource("spring.application.json", Map.of("loompool.passwrod", "s3cret-json"))).run(context ->
                assertThat(description(context)).contains("loompool.passwrod").doesNotContain("s3cret"));
        with(new SimpleCommandLinePropertySource("--loompool.pasword=s3cret-cli")).run(context ->
                assertThat(description(context)).contains("loompool.pasword").doesNotContain("s3cret"));
        with(new SystemEnvironmentPropertySource("test-systemEnvironment", Map.of("LOOMPOOL_PASSWORDS", "s3cret-env")))
                .run(context -> assertThat(context.getStartupFailure() == null ? ""
                        : description(context)).doesNotContain("s3cret"));
        runner.withPropertyValues("loompool.password=s3cret-props", "loompool.username=admin").run(context ->
                assertThat(description(context)).contains("spring.datasource.password").doesNotContain("s3cret"));
    }

    @Test
    void theSwitchAsAnEnvironmentVariableDowngradesAMisspellingInAFile() {
        with(new SystemEnvironmentPropertySource("test-systemEnvironment", Map.of("LOOMPOOL_FAIL_ON_UNKNOWN_KEYS", "false")))
                .withPropertyValues("loompool.max-szie=4").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(LoomPoolDataSource.class).getMaxSize()).isEqualTo(10);
                });
    }

    @Test
    void aReplicaUrlWithoutItsJdbcPrefixFailsWithoutItsPassword() {
        runner.withPropertyValues("loompool.replicas[0]=postgresql://app:s3cretpw@replica.internal:5432/app",
                "loompool.replicas[1]=jdbc:postgresql://replica2.internal:1/app?user=app&password=s3cretpw").run(context -> {
                    if (context.getStartupFailure() != null) {
                        java.io.StringWriter trace = new java.io.StringWriter();
                        context.getStartupFailure().printStackTrace(new java.io.PrintWriter(trace));
                        assertThat(trace.toString()).doesNotContain("s3cretpw");
                        assertThat(description(context)).doesNotContain("s3cretpw");
                    } else {
                        assertThat(context.getBean(LoomPoolDataSource.class).getReplicas()).hasSize(2);
                    }
                });
    }

    @Test
    void aHikariStyleEnvironmentVariableUnderLoompoolFailsNamingLoompoolsKey() {
        for (String variable : List.of("LOOMPOOL_MAX_POOL_SIZE", "LOOMPOOL_MAXIMUM_POOL_SIZE", "LOOMPOOL_MAXIMUMPOOLSIZE")) {
            with(new SystemEnvironmentPropertySource("test-systemEnvironment", Map.of(variable, "40")))
                    .run(context -> assertThat(description(context)).contains(variable)
                            .contains("did you mean loompool.max-size?").doesNotContain("40"));
        }
        with(new SystemEnvironmentPropertySource("test-systemEnvironment", Map.of("LOOMPOOL_CONNECTION_TIMEOUT", "5000")))
                .run(context -> assertThat(description(context)).contains("did you mean loompool.acquire-timeout?"));
    }

    @Test
    void aHikariKeyWrittenUnderLoompoolInAFileNamesLoompoolsKey() {
        with(new MapPropertySource("application.yml", Map.of("loompool.minimum-idle", "2")))
                .run(context -> assertThat(description(context)).contains("loompool.minimum-idle is not a loompool key")
                        .contains("did you mean loompool.min-size?"));
    }

    @Test
    void aMisspelledKeyInAProfileFileFailsNamingTheFile() {
        runner.withInitializer(context -> {
            try {
                new org.springframework.boot.env.PropertiesPropertySourceLoader().load("application-prod.properties",
                        new org.springframework.core.io.ByteArrayResource("loompool.idle-timout=5m\n".getBytes(),
                                "application-prod.properties")).forEach(context.getEnvironment().getPropertySources()::addFirst);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }).run(context -> assertThat(description(context)).contains("loompool.idle-timout")
                .contains("did you mean loompool.idle-timeout?").doesNotContain("5m"));
    }
}
