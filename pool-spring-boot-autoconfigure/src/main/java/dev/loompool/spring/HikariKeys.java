package dev.loompool.spring;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;

/**
 * An application that switches from HikariCP keeps its {@code spring.datasource.hikari.*} keys,
 * which loompool does not read: one WARN line at startup names each of them with the
 * {@code loompool.*} key that does the same job, so a setting is never silently lost.
 */
final class HikariKeys {

    private static final Logger log = LoggerFactory.getLogger(HikariKeys.class);
    private static final ConfigurationPropertyName HIKARI = ConfigurationPropertyName.of("spring.datasource.hikari");

    /** HikariCP's key (Boot's canonical form) and loompool's key for the same job. */
    static final Map<String, String> EQUIVALENT = new LinkedHashMap<>();

    static {
        EQUIVALENT.put("maximum-pool-size", "loompool.max-size");
        EQUIVALENT.put("minimum-idle", "loompool.min-size");
        EQUIVALENT.put("connection-timeout", "loompool.acquire-timeout");
        EQUIVALENT.put("idle-timeout", "loompool.idle-timeout");
        EQUIVALENT.put("max-lifetime", "loompool.max-lifetime");
        EQUIVALENT.put("keepalive-time", "loompool.healthcheck-interval");
        EQUIVALENT.put("leak-detection-threshold", "loompool.leak-detection-threshold");
        EQUIVALENT.put("validation-timeout", "loompool.validation-timeout");
        EQUIVALENT.put("connection-init-sql", "loompool.connection-init-sql");
        EQUIVALENT.put("auto-commit", "loompool.auto-commit");
        EQUIVALENT.put("transaction-isolation", "loompool.transaction-isolation");
        EQUIVALENT.put("read-only", "loompool.read-only");
        EQUIVALENT.put("schema", "loompool.schema");
        EQUIVALENT.put("catalog", "loompool.catalog");
        EQUIVALENT.put("pool-name", "loompool.pool-name");
        EQUIVALENT.put("data-source-properties", "loompool.data-source-properties");
        EQUIVALENT.put("register-mbeans", "loompool.register-mbeans");
        EQUIVALENT.put("initialization-fail-timeout", "loompool.initialization-fail-timeout");
    }

    private HikariKeys() {
    }

    /** The {@code spring.datasource.hikari.*} keys set, by their first element after the prefix. */
    static Set<String> present(Environment environment) {
        Set<String> found = new TreeSet<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source instanceof IterableConfigurationPropertySource iterable) {
                iterable.filter(HIKARI::isAncestorOf).stream()
                        .forEach(name -> found.add(canonical(name.getElement(HIKARI.getNumberOfElements(),
                                ConfigurationPropertyName.Form.DASHED))));
            }
        }
        return found;
    }

    /** HikariCP's dashed spelling of a key written in any relaxed form ({@code connectionTimeout}). */
    private static String canonical(String key) {
        String bare = key.replace("-", "");
        for (String known : EQUIVALENT.keySet()) {
            if (known.replace("-", "").equals(bare)) {
                return known;
            }
        }
        return key;
    }

    /** Logs the one WARN line, if any HikariCP key is set. */
    static void warnIgnored(Environment environment, String poolName) {
        Set<String> keys = present(environment);
        if (keys.isEmpty()) {
            return;
        }
        StringBuilder line = new StringBuilder();
        for (String key : keys) {
            String instead = EQUIVALENT.get(key);
            line.append(line.length() == 0 ? "" : ", ").append("spring.datasource.hikari.").append(key)
                    .append(instead == null ? " (no loompool equivalent)" : " (use " + instead + ")");
        }
        log.warn("pool '{}': loompool is the DataSource and ignores these HikariCP settings: {}", poolName, line);
    }
}
