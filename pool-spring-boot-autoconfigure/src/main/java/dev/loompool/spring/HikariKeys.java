package dev.loompool.spring;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;

/**
 * An application that switches from HikariCP keeps its {@code spring.datasource.hikari.*} keys:
 * each with a loompool equivalent is applied to the auto-configured pool (through
 * {@link HikariSettings}, which maps HikariCP's meaning where it differs), unless the
 * {@code loompool.*} key is set too, which wins. As with HikariCP's own auto-configuration, a pool
 * the application defines itself takes none of them. One INFO line says what was taken and what was
 * overridden, one WARN line what has no equivalent, so a setting is never silently lost.
 */
final class HikariKeys {

    private static final Logger log = LoggerFactory.getLogger(HikariKeys.class);
    private static final String PREFIX = "spring.datasource.hikari";
    private static final ConfigurationPropertyName HIKARI = ConfigurationPropertyName.of(PREFIX);

    /** HikariCP's key (Boot's canonical form) and loompool's key for the same job. */
    static final Map<String, String> EQUIVALENT = equivalents();

    /**
     * HikariCP's own connection keys, which under HikariCP win over {@code spring.datasource.*} and
     * a {@code JdbcConnectionDetails} bean (Boot binds them onto the pool after it is built from
     * those): taken the same way, over what they name.
     */
    static final Map<String, String> CONNECTION = Map.of("jdbc-url", "the connection's URL",
            "username", "the connection's user", "password", "the connection's password",
            "driver-class-name", "the driver class");

    /** HikariCP keys without an equivalent, where the ignoring needs a word: what to set instead. */
    private static final Map<String, String> INSTEAD = Map.of(
            "connection-test-query", "loompool validates with Connection.isValid");

    private static Map<String, String> equivalents() {
        Map<String, String> equivalent = new LinkedHashMap<>();
        equivalent.put("maximum-pool-size", "loompool.max-size");
        equivalent.put("minimum-idle", "loompool.min-size");
        equivalent.put("connection-timeout", "loompool.acquire-timeout");
        equivalent.put("idle-timeout", "loompool.idle-timeout");
        equivalent.put("max-lifetime", "loompool.max-lifetime");
        equivalent.put("keepalive-time", "loompool.healthcheck-interval");
        equivalent.put("leak-detection-threshold", "loompool.leak-detection-threshold");
        equivalent.put("validation-timeout", "loompool.validation-timeout");
        equivalent.put("connection-init-sql", "loompool.connection-init-sql");
        equivalent.put("auto-commit", "loompool.auto-commit");
        equivalent.put("transaction-isolation", "loompool.transaction-isolation");
        equivalent.put("read-only", "loompool.read-only");
        equivalent.put("schema", "loompool.schema");
        equivalent.put("catalog", "loompool.catalog");
        equivalent.put("pool-name", "loompool.pool-name");
        equivalent.put("data-source-properties", "loompool.data-source-properties");
        equivalent.put("register-mbeans", "loompool.register-mbeans");
        equivalent.put("initialization-fail-timeout", "loompool.initialization-fail-timeout");
        return Collections.unmodifiableMap(equivalent);
    }

    /**
     * The HikariCP keys found, sorted: taken, overridden by their loompool key, and without
     * equivalent; {@code minimumIdleIsMaximum} when min-size was set to max-size by HikariCP's rule.
     */
    record Applied(List<String> taken, List<String> overridden, List<String> noEquivalent,
            boolean minimumIdleIsMaximum, boolean startsWithoutDatabase) {

        /** The INFO line, and the WARN line for the keys without equivalent. */
        void log(String poolName) {
            if (!taken.isEmpty() || !overridden.isEmpty()) {
                List<String> parts = new ArrayList<>();
                taken.forEach(key -> parts.add(PREFIX + "." + key + " as " + EQUIVALENT.getOrDefault(key, CONNECTION.get(key))
                        + (minimumIdleIsMaximum && key.equals("maximum-pool-size")
                                ? " (and loompool.min-size, as HikariCP's unset minimum-idle)" : "")));
                if (minimumIdleIsMaximum && !taken.contains("maximum-pool-size")) {
                    parts.add("loompool.min-size = max-size, as HikariCP's unset minimum-idle");
                }
                if (startsWithoutDatabase) {
                    parts.add("loompool.initialization-fail-timeout = -1ms, as HikariCP under Spring Boot starts"
                            + " at first use (set it to 0 to stop the start while the database is down)");
                }
                StringBuilder line = new StringBuilder(String.join(", ", parts));
                if (!overridden.isEmpty()) {
                    List<String> lost = new ArrayList<>();
                    overridden.forEach(key -> lost.add(PREFIX + "." + key + " (" + EQUIVALENT.get(key) + " is set)"));
                    line.append(line.length() == 0 ? "" : "; ").append("overridden by loompool keys: ")
                            .append(String.join(", ", lost));
                }
                log.info("loompool '{}' takes these HikariCP settings: {}", poolName, line);
            }
            if (!noEquivalent.isEmpty()) {
                List<String> parts = new ArrayList<>();
                noEquivalent.forEach(key -> parts.add(PREFIX + "." + key
                        + (INSTEAD.containsKey(key) ? " (" + INSTEAD.get(key) + ")" : "")));
                log.warn("loompool '{}' ignores these HikariCP settings, which have no loompool equivalent: {}",
                        poolName, String.join(", ", parts));
            }
        }
    }

    private HikariKeys() {
    }

    /**
     * Applies the HikariCP keys whose loompool key is not set: one that is set wins, so its HikariCP
     * key is not even bound (a value only it would refuse cannot stop the startup), and a map
     * ({@code data-source-properties}) is taken from one side, never merged. A value the pool
     * refuses fails the startup naming the HikariCP key, where it was set, and the loompool key it
     * stands for.
     */
    static Applied apply(Environment environment, LoomPoolDataSource ds) {
        Iterable<ConfigurationPropertySource> sources = ConfigurationPropertySources.get(environment);
        Set<String> taken = new TreeSet<>();
        Set<String> overridden = new TreeSet<>();
        Set<String> noEquivalent = new TreeSet<>();
        for (String key : present(environment)) {
            String loompoolKey = EQUIVALENT.get(key);
            if (CONNECTION.containsKey(key)) {
                taken.add(key); // over spring.datasource.*, as under HikariCP; no loompool.* key names a connection
            } else if (loompoolKey == null) {
                noEquivalent.add(key);
            } else if (PoolKeys.isSet(ConfigurationPropertyName.of(loompoolKey), sources)) {
                overridden.add(key);
            } else {
                taken.add(key);
            }
        }
        if (!taken.isEmpty()) {
            try {
                Binder.get(environment).bind(PREFIX, Bindable.ofInstance(new HikariSettings(ds)), new Only(taken));
            } catch (BindException e) {
                String key = PoolKeys.key(e);
                String loompoolKey = key.startsWith(PREFIX + ".") ? EQUIVALENT.get(key.substring(PREFIX.length() + 1))
                        : null;
                throw PoolKeys.refused(e, loompoolKey == null ? "" : " (applied as " + loompoolKey + ")");
            }
        }
        return new Applied(List.copyOf(taken), List.copyOf(overridden), List.copyOf(noEquivalent), false, false);
    }

    /**
     * After {@code loompool.*} is bound, the rules of HikariCP that need both sides, applied only
     * where HikariCP's keys decide (any of them taken says the application was configured for
     * HikariCP; a setting made through a loompool key keeps loompool's rules):
     * <ul>
     * <li>its minimum-idle: unset, it is maximum-pool-size (a fixed-size pool, set or default, so
     * 10/10 even with maximum-pool-size unset), where loompool's min-size is 2; above
     * maximum-pool-size, it is lowered to it, where loompool refuses the start;</li>
     * <li>its start: Boot builds HikariCP's pool unstarted and it starts at first use, so its
     * application comes up with the database down; unset, loompool's initialization-fail-timeout
     * is then -1ms (start, connect in the background) instead of 0.</li>
     * </ul>
     */
    static Applied applyHikariRules(Environment environment, Applied applied, LoomPoolDataSource ds) {
        Iterable<ConfigurationPropertySource> sources = ConfigurationPropertySources.get(environment);
        boolean minFromLoompool = PoolKeys.isSet(ConfigurationPropertyName.of("loompool.min-size"), sources);
        boolean maxFromLoompool = PoolKeys.isSet(ConfigurationPropertyName.of("loompool.max-size"), sources);
        boolean configuredForHikari = !applied.taken().isEmpty();
        boolean fixedSize = configuredForHikari && !applied.taken().contains("minimum-idle") && !minFromLoompool
                && !maxFromLoompool;
        if (fixedSize) {
            ds.setMinSize(ds.getMaxSize());
        } else if (applied.taken().contains("minimum-idle") && ds.getMinSize() > ds.getMaxSize()) {
            ds.setMinSize(ds.getMaxSize());
        }
        boolean lazyStart = configuredForHikari && !applied.taken().contains("initialization-fail-timeout")
                && !applied.overridden().contains("initialization-fail-timeout")
                && !PoolKeys.isSet(ConfigurationPropertyName.of("loompool.initialization-fail-timeout"), sources);
        if (lazyStart) {
            ds.setInitializationFailTimeout(Duration.ofMillis(-1));
        }
        return new Applied(applied.taken(), applied.overridden(), applied.noEquivalent(), fixedSize, lazyStart);
    }

    /** The {@code spring.datasource.hikari.*} keys set, by their first element after the prefix. */
    static Set<String> present(Environment environment) {
        Set<String> found = new TreeSet<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source instanceof IterableConfigurationPropertySource iterable) {
                iterable.filter(HIKARI::isAncestorOf).stream().forEach(name -> found.add(canonical(name)));
            }
        }
        return found;
    }

    /**
     * HikariCP's dashed spelling of a key written in any relaxed form: {@code connectionTimeout},
     * or {@code SPRING_DATASOURCE_HIKARI_CONNECTION_TIMEOUT}, which reads as several elements.
     */
    private static String canonical(ConfigurationPropertyName name) {
        StringBuilder rest = new StringBuilder();
        for (int i = HIKARI.getNumberOfElements(); i < name.getNumberOfElements(); i++) {
            rest.append(name.getElement(i, ConfigurationPropertyName.Form.UNIFORM));
            String bare = rest.toString();
            for (String known : EQUIVALENT.keySet()) {
                if (known.replace("-", "").equals(bare)) {
                    return known;
                }
            }
            for (String known : INSTEAD.keySet()) {
                if (known.replace("-", "").equals(bare)) {
                    return known;
                }
            }
            for (String known : CONNECTION.keySet()) {
                if (known.replace("-", "").equals(bare)) {
                    return known;
                }
            }
        }
        return name.getElement(HIKARI.getNumberOfElements(), ConfigurationPropertyName.Form.DASHED);
    }

    /** Binds the keys taken; the others (overridden by their loompool key) are left alone. */
    private static final class Only extends AbstractBindHandler {

        private final Set<String> taken;

        Only(Set<String> taken) {
            this.taken = taken;
        }

        @Override
        public <T> Bindable<T> onStart(ConfigurationPropertyName name, Bindable<T> target, BindContext context) {
            if (context.getDepth() == 1 && !taken.contains(name.getLastElement(ConfigurationPropertyName.Form.DASHED))) {
                return null;
            }
            return target;
        }
    }
}
