package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/** No setting is silently lost: a misspelled {@code loompool.*} key stops the startup, naming the key meant. */
@ExtendWith(OutputCaptureExtension.class)
class UnknownKeysTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class, DataSourceAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + LoomPoolAutoConfigurationTest.h2());

    @Test
    void aMisspelledKeyFailsStartupNamingTheNearestKey() {
        runner.withPropertyValues("loompool.max-szie=4").run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new LoomPoolFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription())
                    .contains("loompool.max-szie").contains("is not a loompool key; did you mean loompool.max-size?")
                    .doesNotContain("=4");
            assertThat(analysis.getAction()).contains("loompool.fail-on-unknown-keys=false");
        });
    }

    /** JVM system properties are shared with tools (this build's -Dloompool.matrix.skip): only a near miss fails. */
    @Test
    void aSystemPropertyNearNoKeyIsAToolsAndANearMissAMisspelling() {
        runner.withSystemProperties("loompool.matrix.skip=true", "loompool.fuzz.tries=20").run(context ->
                assertThat(context).hasNotFailed());
        runner.withSystemProperties("loompool.max-szie=4").run(context -> {
            assertThat(context).hasFailed();
            assertThat(new LoomPoolFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
                    .contains("did you mean loompool.max-size?");
        });
    }

    @Test
    void aMisspelledNestedKeyFailsStartupNamingTheNearestKey() {
        runner.withPropertyValues("loompool.circuit-breaker.failure-treshold=3").run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new LoomPoolFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("loompool.circuit-breaker.failure-treshold is not a "
                    + "loompool key; did you mean loompool.circuit-breaker.failure-threshold?");
        });
    }

    @Test
    void everyMisspelledKeyIsNamedAndNoValueIsShown() {
        runner.withPropertyValues("loompool.max-szie=4", "loompool.data-source-property.password=hunter2").run(context -> {
            FailureAnalysis analysis = new LoomPoolFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("did you mean loompool.max-size?")
                    .contains("did you mean loompool.data-source-properties?").doesNotContain("hunter2");
        });
    }

    @Test
    void aMisspelledKeyIsNotTakenForAnEntryOfAMapKey() {
        runner.withPropertyValues("loompool.replicas-min-size=1").run(context -> {
            FailureAnalysis analysis = new LoomPoolFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("did you mean loompool.replica-min-size?");
        });
    }

    @Test
    void relaxedFormsOfValidKeysStart() {
        runner.withPropertyValues("loompool.maxSize=4", "loompool.min_size=1", "loompool.circuitBreaker.failureThreshold=3",
                "loompool.circuit-breaker.open-duration=2s", "loompool.data-source-properties.cachePrepStmts=true",
                "loompool.dataSourceProperties[useSSL]=false").run(context -> {
                    assertThat(context).hasNotFailed();
                    LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
                    assertThat(ds.getMaxSize()).isEqualTo(4);
                    assertThat(ds.getMinSize()).isEqualTo(1);
                    assertThat(ds.getCircuitBreakerFailureThreshold()).isEqualTo(3);
                    assertThat(ds.getCircuitBreakerOpenDuration()).isEqualTo(Duration.ofSeconds(2));
                });
    }

    @Test
    void environmentVariablesOfValidKeysStartAndAMisspelledOneFails() {
        runner.withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                new SystemEnvironmentPropertySource("test-systemEnvironment", Map.of("LOOMPOOL_MAXSIZE", "4",
                        "LOOMPOOL_MAX_LIFETIME", "10m", "LOOMPOOL_CIRCUIT_BREAKER_FAILURE_THRESHOLD", "3",
                        "LOOMPOOL_CIRCUITBREAKER_OPENDURATION", "2s", "LOOMPOOL_FAIL_ON_UNKNOWN_KEYS", "true",
                        "LOOMPOOL_DATASOURCEPROPERTIES_SSLMODE", "disable",
                        "LOOMPOOL_TEST_POSTGRES_URL", "jdbc:postgresql://ci/test")))) // another tool's: no key is near
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
                    assertThat(ds.getMaxSize()).isEqualTo(4);
                    assertThat(ds.getMaxLifetime()).isEqualTo(Duration.ofMinutes(10));
                    assertThat(ds.getCircuitBreakerFailureThreshold()).isEqualTo(3);
                    assertThat(ds.getDataSourceProperties()).containsEntry("sslmode", "disable");
                });
        runner.withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                new SystemEnvironmentPropertySource("test-systemEnvironment", Map.of("LOOMPOOL_MAXSZIE", "4"))))
                .run(context -> {
                    FailureAnalysis analysis = new LoomPoolFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("LOOMPOOL_MAXSZIE")
                            .contains("did you mean loompool.max-size?");
                });
    }

    @Test
    void theSwitchDowngradesTheFailureToOneWarning(CapturedOutput output) {
        runner.withPropertyValues("loompool.max-szie=4", "loompool.circuit-breaker.failure-treshold=3",
                "loompool.fail-on-unknown-keys=false").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output.getOut().lines().filter(l -> l.contains("is not a loompool key"))).singleElement()
                            .asString().contains(" WARN ").contains("did you mean loompool.max-size?")
                            .contains("did you mean loompool.circuit-breaker.failure-threshold?");
                });
    }

    @Test
    void everyKeyOfTheMetadataIsValid() throws Exception {
        String json = new String(getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")
                .readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        java.util.List<String> names = com.jayway.jsonpath.JsonPath.read(json, "$.properties[*].name");
        assertThat(UnknownKeys.knownNames()).containsAll(names.stream().filter(n -> n.startsWith("loompool.")).toList())
                .contains("loompool.circuit-breaker.failure-threshold", UnknownKeys.SWITCH);
    }
}
