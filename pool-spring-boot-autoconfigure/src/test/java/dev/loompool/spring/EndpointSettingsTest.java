package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.sql.Connection;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code GET /actuator/loompool/{name}} shows every effective setting (issue 40): each setting
 * of {@link LoomPoolDataSource}, as a started pool runs with it, but the credentials.
 */
class EndpointSettingsTest {

    private static final String PASSWORD = "Pw-endpoint-9z";
    private static final String PROPERTY_SECRET = "Prop-secret-4k";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class,
                    LoomPoolEndpointAutoConfiguration.class, DataSourceAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + LoomPoolAutoConfigurationTest.h2(),
                    "spring.datasource.username=sa", "spring.datasource.password=" + PASSWORD,
                    "loompool.pool-name=shown", "loompool.max-size=4",
                    "loompool.leak-detection-threshold=2m", "loompool.validation-timeout=3s",
                    "loompool.healthcheck-interval=20s", "loompool.initialization-fail-timeout=1s",
                    "loompool.pin-warning-threshold=45s",
                    "loompool.data-source-properties.password=" + PROPERTY_SECRET,
                    "management.endpoints.web.exposure.include=loompool");

    /** The data source's settings as a JavaBean: every property with a getter and a setter. */
    private static Set<String> settingsOfTheDataSource() throws Exception {
        return Arrays.stream(Introspector.getBeanInfo(LoomPoolDataSource.class).getPropertyDescriptors())
                .filter(p -> p.getReadMethod() != null && p.getWriteMethod() != null)
                .map(PropertyDescriptor::getName).collect(Collectors.toSet());
    }

    @Test
    void everySettingOfTheDataSourceIsShownButTheCredentials() {
        runner.run(context -> {
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            try (Connection c = ds.getConnection()) {
                assertThat(c.isValid(1)).isTrue();
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> shown = (Map<String, Object>) context.getBean(LoomPoolEndpoint.class).pool("shown").get("settings");
            Set<String> expected = settingsOfTheDataSource();
            expected.removeAll(EndpointSettings.SECRETS);
            expected.removeAll(EndpointSettings.NOT_SETTINGS);
            assertThat(shown.keySet()).containsExactlyInAnyOrderElementsOf(expected);
            assertThat(shown.keySet()).doesNotContain("password", "credentialsSupplier");
            assertThat(shown).containsEntry("leakDetectionThreshold", "PT2M").containsEntry("validationTimeout", "PT3S")
                    .containsEntry("healthcheckInterval", "PT20S").containsEntry("initializationFailTimeout", "PT1S")
                    .containsEntry("pinWarningThreshold", "PT45S").containsEntry("maxSize", 4)
                    .containsEntry("minSize", 2).containsEntry("releaseMode", "STATEMENT").containsEntry("username", "sa")
                    .containsEntry("jdbcUrl", ds.getMaskedJdbcUrl());
            assertThat(shown.get("dataSourceProperties")).asString().contains("password");
            assertThat(shown.toString()).doesNotContain(PASSWORD).doesNotContain(PROPERTY_SECRET);
        });
    }

    @Test
    void aLimitChangedWhileThePoolRunsIsShownAsItRuns() {
        runner.run(context -> {
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            try (Connection c = ds.getConnection()) {
                assertThat(c.isValid(1)).isTrue();
            }
            ds.setMaxSize(6);
            ds.setLeakDetectionThreshold(java.time.Duration.ofSeconds(90));
            @SuppressWarnings("unchecked")
            Map<String, Object> shown = (Map<String, Object>) context.getBean(LoomPoolEndpoint.class).pool("shown").get("settings");
            assertThat(shown).containsEntry("maxSize", 6).containsEntry("leakDetectionThreshold", "PT1M30S");
        });
    }
}
