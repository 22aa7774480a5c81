package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import dev.loompool.jdbc.LoomPoolDataSource;
import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * The jar carries the configuration metadata IDEs complete {@code loompool.*} keys from, whatever
 * JDK builds it (JDK 23+ runs no annotation processor it is not told about); it lists exactly the
 * keys that bind onto the pool, each described, with the pool's own defaults.
 */
class ConfigurationMetadataTest {

    private static final Map<String, Map<String, Object>> KEYS = new LinkedHashMap<>();

    @BeforeAll
    static void readTheJarsMetadata() throws Exception {
        String json;
        try (InputStream in = ConfigurationMetadataTest.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("META-INF/spring-configuration-metadata.json, generated at build time").isNotNull();
            json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<Map<String, Object>> properties = JsonPath.read(json, "$.properties");
        for (Map<String, Object> property : properties) {
            String name = (String) property.get("name");
            if (name.startsWith("loompool.")) {
                KEYS.put(name, property);
            }
        }
    }

    @Test
    void theJarDescribesEveryLoompoolKey() {
        List<String> undescribed = new ArrayList<>();
        KEYS.forEach((name, property) -> {
            Object description = property.get("description");
            if (description == null || description.toString().isBlank()) {
                undescribed.add(name);
            }
        });
        assertThat(KEYS).containsKeys("loompool.max-size", "loompool.acquire-timeout", "loompool.release-mode",
                "loompool.circuit-breaker.failure-threshold", "loompool.circuit-breaker.open-duration",
                "loompool.reclaim-on-owner-exit");
        assertThat(undescribed).as("keys without a description").isEmpty();
    }

    @Test
    void theMetadataListsExactlyTheKeysThatBindOntoThePool() throws Exception {
        TreeSet<String> bindable = new TreeSet<>();
        for (PropertyDescriptor p : Introspector.getBeanInfo(LoomPoolDataSource.class).getPropertyDescriptors()) {
            String key = p.getName().replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase();
            if (p.getWriteMethod() != null && !PoolKeys.NOT_KEYS.containsKey(key)) {
                bindable.add("loompool." + key);
            }
        }
        bindable.add("loompool.circuit-breaker.failure-threshold");
        bindable.add("loompool.circuit-breaker.open-duration");
        // The one key that is the starter's, not the pool's: read by the metrics auto-configuration.
        bindable.add(LoomPoolMetricsAutoConfiguration.HIKARI_COMPATIBLE);
        bindable.add(UnknownKeys.SWITCH); // read by UnknownKeys, not bound onto the pool
        assertThat(new TreeSet<>(KEYS.keySet())).isEqualTo(bindable);
    }

    @Test
    void theDefaultsInTheMetadataAreThePoolsOwn() throws Exception {
        Map<String, Object> defaults = new LinkedHashMap<>();
        KEYS.forEach((name, property) -> {
            if (property.get("defaultValue") != null) {
                defaults.put(name, property.get("defaultValue").toString());
            }
        });
        assertThat(defaults).containsKeys("loompool.min-size", "loompool.acquire-timeout", "loompool.release-mode",
                "loompool.circuit-breaker.open-duration");
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("metadata defaults", defaults));
        LoomPoolDataSource bound = new LoomPoolDataSource();
        bound.setMinSize(0);
        bound.setMaxSize(99);
        bound.setCircuitBreakerOpenDuration(java.time.Duration.ofDays(1));
        PoolKeys.bind(environment, bound);
        LoomPoolDataSource fresh = new LoomPoolDataSource();
        for (PropertyDescriptor p : Introspector.getBeanInfo(LoomPoolDataSource.class).getPropertyDescriptors()) {
            if (p.getWriteMethod() != null && p.getReadMethod() != null) {
                assertThat(p.getReadMethod().invoke(bound)).as(p.getName()).isEqualTo(p.getReadMethod().invoke(fresh));
            }
        }
    }
}
