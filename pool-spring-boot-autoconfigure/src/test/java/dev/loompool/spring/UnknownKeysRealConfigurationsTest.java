package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * The unknown-key check against configurations real applications run: full SpringApplication starts
 * (config files, profiles, config trees, SPRING_APPLICATION_JSON, command line, environment), then
 * the check itself against every key in every form. A valid configuration must start; a misspelled
 * or misplaced key must not start silently with the default.
 */
class UnknownKeysRealConfigurationsTest {

    @TempDir
    Path dir;

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class,
        DataSourceAutoConfiguration.class})
    static class App {
    }

    /** A real start: the args as a command line, the variables as the process environment. */
    private static Object start(Map<String, String> env, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.add("--spring.datasource.url=" + LoomPoolAutoConfigurationTest.h2());
        all.add("--spring.main.register-shutdown-hook=false");
        StandardEnvironment environment = new StandardEnvironment() {
            @Override
            protected void customizePropertySources(MutablePropertySources sources) {
                super.customizePropertySources(sources);
                Map<String, Object> merged = new HashMap<>(getSystemEnvironment());
                merged.putAll(env);
                sources.replace(SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                        new SystemEnvironmentPropertySource(SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, merged));
            }
        };
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE).bannerMode(Banner.Mode.OFF).logStartupInfo(false)
                .environment(environment).run(all.toArray(String[]::new))) {
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            return new Settings(ds.getMaxSize(), ds.getMinSize(), ds.getIdleTimeout(),
                    ds.getCircuitBreakerFailureThreshold(), ds.getReplicas(), driver(ds.getDataSourceProperties()));
        } catch (RuntimeException e) {
            Throwable cause = e;
            while (cause != null && !(cause instanceof LoomPoolStartupException)) {
                cause = cause.getCause();
            }
            if (cause == null) {
                StringWriter trace = new StringWriter();
                e.printStackTrace(new PrintWriter(trace));
                return "not a loompool failure: " + trace;
            }
            FailureAnalysis analysis = new LoomPoolFailureAnalyzer().analyze(e);
            return analysis.getDescription() + " / " + analysis.getAction();
        }
    }

    private static Map<String, String> driver(java.util.Properties properties) {
        Map<String, String> copy = new HashMap<>();
        properties.stringPropertyNames().forEach(name -> copy.put(name, properties.getProperty(name)));
        return copy;
    }

    record Settings(int maxSize, int minSize, Duration idleTimeout, int failureThreshold, List<String> replicas,
            Map<String, String> driver) {
    }

    private static Settings started(Object result) {
        assertThat(result).as("start failed").isInstanceOf(Settings.class);
        return (Settings) result;
    }

    private static String failed(Object result) {
        assertThat(result).as("started silently").isInstanceOf(String.class);
        return (String) result;
    }

    /** The check alone, against one source of keys: null when it passes, else its message. */
    private static String check(Map<String, Object> keys, boolean environmentVariables) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(environmentVariables
                ? new SystemEnvironmentPropertySource("test-systemEnvironment", keys) : new MapPropertySource("application.yml", keys));
        try {
            UnknownKeys.check(environment);
            return null;
        } catch (LoomPoolStartupException e) {
            return e.getMessage();
        }
    }

    private Path write(String name, String text) throws IOException {
        Path file = dir.resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        return file;
    }

    @Test
    void aYamlWithNestedMapsListsBracketsUppercaseAndAProfileStarts() throws IOException {
        String replica = LoomPoolAutoConfigurationTest.h2();
        write("application.yml", """
                loompool:
                  max-size: 5
                  minSize: 0
                  replicas:
                    - %s
                  data-source-properties:
                    ssl:
                      mode: disable
                    "[oracle.jdbc.timezoneAsRegion]": "false"
                    ApplicationName: app
                    sslFactory: x
                  circuit-breaker:
                    failure-threshold: 3
                  metrics:
                    hikari-compatible: false
                  fail-on-unknown-keys: true
                ---
                spring.config.activate.on-profile: prod
                loompool:
                  idle-timeout: 7m
                  circuitBreaker:
                    openDuration: 4s
                """.formatted(replica));
        Settings settings = started(start(Map.of(), "--spring.config.location=file:" + dir + "/",
                "--spring.profiles.active=prod"));
        assertThat(settings.maxSize()).isEqualTo(5);
        assertThat(settings.idleTimeout()).isEqualTo(Duration.ofMinutes(7));
        assertThat(settings.failureThreshold()).isEqualTo(3);
        assertThat(settings.replicas()).containsExactly(replica);
        assertThat(settings.driver()).containsEntry("ssl.mode", "disable").containsEntry("oracle.jdbc.timezoneAsRegion", "false");
    }

    @Test
    void aKubernetesConfigTreeWithItsHiddenLinksStarts() throws IOException {
        Path data = dir.resolve("..2026_12_02_10_00_00.123");
        Files.createDirectories(data.resolve("loompool/circuit-breaker"));
        Files.writeString(data.resolve("loompool/max-size"), "6\n");
        Files.writeString(data.resolve("loompool/min-size"), "0");
        Files.writeString(data.resolve("loompool/circuit-breaker/failure-threshold"), "4");
        Files.createSymbolicLink(dir.resolve("..data"), data.getFileName());
        Files.createSymbolicLink(dir.resolve("loompool"), Path.of("..data/loompool"));
        Settings settings = started(start(Map.of(), "--spring.config.import=optional:configtree:" + dir + "/,"
                + "optional:file:/nonexistent/loompool.yml"));
        assertThat(settings.maxSize()).isEqualTo(6);
        assertThat(settings.failureThreshold()).isEqualTo(4);
    }

    /** A Kubernetes secret's keys cannot hold brackets: a replica's index is a file name. */
    @Test
    void aConfigTreeReplicaIndexAndDriverPropertyAreApplied() throws IOException {
        String replica = LoomPoolAutoConfigurationTest.h2();
        write("loompool/replicas/0", replica);
        write("loompool/min-size", "0");
        write("loompool/data-source-properties/ssl.mode", "disable");
        Settings settings = started(start(Map.of(), "--spring.config.import=configtree:" + dir + "/"));
        assertThat(settings.replicas()).containsExactly(replica);
        assertThat(settings.driver()).containsEntry("ssl.mode", "disable");
    }

    @Test
    void springApplicationJsonFromTheEnvironmentStarts() {
        Settings settings = started(start(Map.of("SPRING_APPLICATION_JSON", """
                {"loompool": {"max-size": 4, "min-size": 0, "replicas": ["%s"],
                 "data-source-properties": {"ssl.mode": "disable", "ApplicationName": "app"},
                 "circuit-breaker": {"failure-threshold": 2}, "metrics": {"hikari-compatible": false}}}
                """.formatted(LoomPoolAutoConfigurationTest.h2()))));
        assertThat(settings.maxSize()).isEqualTo(4);
        assertThat(settings.failureThreshold()).isEqualTo(2);
        assertThat(settings.driver()).containsEntry("ssl.mode", "disable");
    }

    /** A Helm chart's toJson of its values: the groups it has no entries for are empty objects and lists. */
    @Test
    void springApplicationJsonWithEmptyGroupsStarts() {
        Settings settings = started(start(Map.of("SPRING_APPLICATION_JSON", """
                {"loompool": {"max-size": 4, "replicas": [], "data-source-properties": {},
                 "circuit-breaker": {}, "metrics": {}}}
                """)));
        assertThat(settings.maxSize()).isEqualTo(4);
        assertThat(settings.failureThreshold()).isEqualTo(5);
        assertThat(settings.replicas()).isEmpty();
        assertThat(check(Map.of("loompool.circuit-braker", Map.of()), false)).contains("loompool.circuit-braker");
    }

    /** Every loompool setting commented out, the block's head kept: Boot reads loompool itself as "". */
    @Test
    void aLoompoolBlockWhoseEveryKeyIsCommentedOutStarts() throws IOException {
        write("application.yml", """
                loompool:
                #  max-size: 5
                #  circuit-breaker:
                #    failure-threshold: 3
                spring:
                  main:
                    banner-mode: off
                """);
        assertThat(started(start(Map.of(), "--spring.config.location=file:" + dir + "/")).maxSize()).isEqualTo(10);
        assertThat(started(start(Map.of("SPRING_APPLICATION_JSON", "{\"loompool\": {}}"))).maxSize()).isEqualTo(10);
    }

    /** A key quoted in brackets in YAML ("[max-size]"), which Boot binds as the key. */
    @Test
    void aKeyInBracketsIsAppliedOrRefusedNeverIgnored() throws IOException {
        write("application.yml", """
                loompool:
                  "[max-size]": 3
                  circuit-breaker:
                    "[failure-threshold]": 2
                """);
        Object result = start(Map.of(), "--spring.config.location=file:" + dir + "/");
        if (result instanceof Settings settings) {
            assertThat(settings.maxSize()).isEqualTo(3);
            assertThat(settings.failureThreshold()).isEqualTo(2);
        } else {
            assertThat((String) result).contains("[max-size]");
        }
    }

    @Test
    void everyKeyInEveryRelaxedFormPassesTheCheck() {
        Map<String, Object> file = new LinkedHashMap<>();
        Map<String, Object> env = new LinkedHashMap<>();
        for (String key : UnknownKeys.knownNames()) {
            String rest = key.substring("loompool.".length());
            file.put(key, "1");
            file.put("loompool." + camel(rest), "1");
            file.put("loompool." + rest.replace('-', '_'), "1");
            file.put("loompool." + rest.toUpperCase(), "1");
            env.put("LOOMPOOL_" + rest.replace('-', '_').replace('.', '_').toUpperCase(), "1");
            env.put("LOOMPOOL_" + rest.replace("-", "").replace('.', '_').toUpperCase(), "1");
        }
        assertThat(check(file, false)).isNull();
        assertThat(check(env, true)).isNull();
    }

    private static String camel(String dashed) {
        StringBuilder out = new StringBuilder();
        boolean up = false;
        for (char c : dashed.toCharArray()) {
            if (c == '-') {
                up = true;
            } else {
                out.append(up ? Character.toUpperCase(c) : c);
                up = false;
            }
        }
        return out.toString();
    }

    @Test
    void mapAndListEntriesInEveryFormPassTheCheck() {
        assertThat(check(Map.of("loompool.data-source-properties[oracle.jdbc.timezoneAsRegion]", "false",
                "loompool.dataSourceProperties.ApplicationName", "a", "loompool.data-source-properties.ssl.mode", "x",
                "loompool.data_source_properties.sslmode", "x", "loompool.replicas[0]", "u", "loompool.replicas[12]", "u",
                "loompool.replicas", "u,v", "loompool.data-source-properties.[socketTimeout]", "3"), false)).isNull();
        assertThat(check(Map.of("LOOMPOOL_DATASOURCEPROPERTIES_SSLMODE", "x", "LOOMPOOL_DATA_SOURCE_PROPERTIES_SSL_MODE", "x",
                "LOOMPOOL_REPLICAS_0", "u", "LOOMPOOL_REPLICAS_11", "u", "LOOMPOOL_REPLICAS", "u,v",
                "loompool_max_size", "3", "LOOMPOOL_CIRCUITBREAKER_FAILURE_THRESHOLD", "3"), true)).isNull();
    }

    /** Docker and Kubernetes take variables named with dots and dashes, as the keys are written. */
    @Test
    void dottedVariableNamesAreAppliedOrRefusedNeverIgnored() {
        Object result = start(Map.of("loompool.max-size", "3", "loompool.circuit-breaker.failure-threshold", "2"));
        if (result instanceof Settings settings) {
            assertThat(settings.maxSize()).isEqualTo(3);
            assertThat(settings.failureThreshold()).isEqualTo(2);
        }
        assertThat(start(Map.of("loompool.max-szie", "3"))).isInstanceOf(String.class);
    }

    @Test
    void aMisspellingInAYamlFileFailsNamingItsLineWithoutTheSecret() throws IOException {
        write("application.yml", """
                loompool:
                  data-source-propertes:
                    password: s3cret-yaml
                """);
        assertThat(failed(start(Map.of(), "--spring.config.location=file:" + dir + "/")))
                .contains("loompool.data-source-propertes.password is not a loompool key")
                .contains("did you mean loompool.data-source-properties?").contains("application.yml")
                .doesNotContain("s3cret");
        assertThat(failed(start(Map.of("SPRING_APPLICATION_JSON", "{\"loompool\":{\"pasword\":\"s3cret-json\"}}"))))
                .contains("loompool.pasword").doesNotContain("s3cret");
    }

    @Test
    void aReplicaWrittenAsAMapEntryOfTheListFails() throws IOException {
        write("application.yml", """
                loompool:
                  replicas:
                    - url: jdbc:h2:mem:replica
                      username: app
                """);
        assertThat(failed(start(Map.of(), "--spring.config.location=file:" + dir + "/"))).contains("loompool.replicas[0]");
    }

    @Test
    void misspelledAndHikariNamedKeysFailNamingLoompoolsKey() {
        assertThat(check(Map.of("loompool.circuitbreaker.failure-treshold", "3"), false))
                .contains("did you mean loompool.circuit-breaker.failure-threshold?");
        assertThat(check(Map.of("loompool.maximumPoolSize", "3"), false)).contains("did you mean loompool.max-size?");
        assertThat(check(Map.of("loompool.keepalive-time", "3"), false))
                .contains("did you mean loompool.healthcheck-interval?");
        assertThat(check(Map.of("LOOMPOOL_CIRCUIT_BREAKER_FAILURE_TRESHOLD", "3"), true))
                .contains("did you mean loompool.circuit-breaker.failure-threshold?");
        assertThat(check(Map.of("LOOMPOOL_DATA_SOURCE_PROPERTY_SSLMODE", "x"), true))
                .contains("did you mean loompool.data-source-properties?");
        assertThat(check(Map.of("loompool.circuitBreaker.failureTreshold", "3"), false))
                .contains("did you mean loompool.circuit-breaker.failure-threshold?");
        assertThat(check(Map.of("loompool.pool-name.password", "s3cret"), false)).doesNotContain("s3cret");
    }

    /** Where HikariCP's keys go (spring.datasource.hikari.*), a team moving from it writes loompool's. */
    @Test
    void aLoompoolKeyUnderSpringDatasourceFails() {
        assertThat(failed(start(Map.of(), "--spring.datasource.loompool.max-size=3")))
                .contains("did you mean loompool.max-size?");
        assertThat(failed(start(Map.of("SPRING_LOOMPOOL_MAX_SIZE", "3")))).contains("loompool.max-size");
    }

    /** A YAML key indented one level too deep under data-source-properties, the last group of the block. */
    @Test
    void aPoolKeyIndentedIntoTheDriversPropertiesFails() throws IOException {
        write("application.yml", """
                loompool:
                  min-size: 0
                  data-source-properties:
                    sslmode: disable
                    max-size: 3
                """);
        assertThat(failed(start(Map.of(), "--spring.config.location=file:" + dir + "/")))
                .contains("loompool.data-source-properties.max-size").contains("loompool.max-size");
    }

    /** Metadata as the configuration processor writes a deprecated key: its deprecation is a nested object. */
    @Test
    void aDeprecatedKeyInTheMetadataIsAKey() throws IOException {
        write("META-INF/spring-configuration-metadata.json", """
                {"groups": [], "properties": [
                  {"name": "loompool.old-size", "type": "java.lang.Integer",
                   "deprecated": true, "deprecation": {"level": "warning", "reason": "say \\"{max}\\" instead",
                   "replacement": "loompool.max-size"}},
                  {"name": "loompool.older-size", "type": "java.util.Map<java.lang.String,java.lang.String>",
                   "deprecation": {"level": "error"}},
                  {"name": "loompool.new-size", "type": "java.lang.Integer"}
                ]}
                """);
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, null)) {
            assertThat(KeyMetadata.loompoolKeys(loader)).containsEntry("loompool.old-size", "java.lang.Integer")
                    .containsKeys("loompool.new-size", "loompool.older-size").hasSize(3);
        }
    }
}
