package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The jar carries the configuration metadata IDEs complete {@code loompool.*} keys from, whatever
 * JDK builds it (JDK 23+ runs no annotation processor it is not told about), and every key in it
 * says what it does.
 */
class ConfigurationMetadataTest {

    @Test
    void theJarDescribesEveryLoompoolKey() throws Exception {
        String json;
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("META-INF/spring-configuration-metadata.json, generated at build time").isNotNull();
            json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<String> keys = new ArrayList<>();
        List<String> undescribed = new ArrayList<>();
        List<Map<String, Object>> properties = JsonPath.read(json, "$.properties");
        for (Map<String, Object> property : properties) {
            String name = (String) property.get("name");
            if (name.startsWith("loompool.")) {
                keys.add(name);
                Object description = property.get("description");
                if (description == null || description.toString().isBlank()) {
                    undescribed.add(name);
                }
            }
        }
        assertThat(keys).contains("loompool.max-size", "loompool.acquire-timeout", "loompool.release-mode",
                "loompool.circuit-breaker.failure-threshold", "loompool.circuit-breaker.open-duration",
                "loompool.reclaim-on-owner-exit");
        assertThat(undescribed).as("keys without a description").isEmpty();
    }
}
