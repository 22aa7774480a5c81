package dev.loompool.spring;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * No setting is silently lost: a {@code loompool.*} key that nothing reads (a misspelling) fails the
 * startup, naming the nearest valid key, unless {@value #SWITCH}{@code =false} makes it one WARN line.
 *
 * <p>The valid keys are those of the configuration metadata on the class path (every key loompool
 * reads has an entry there, wherever it is bound) and the pool's own keys ({@link PoolKeys#KEYS});
 * a bean property that is not a key ({@code loompool.password}) has failed before, in
 * {@link PoolKeys}, with its own message. Names are compared in Boot's uniform form (lower case, no
 * dashes), so every relaxed spelling Boot binds ({@code maxSize}, {@code max_size},
 * {@code LOOMPOOL_MAXSIZE}) is valid. An environment variable under {@code LOOMPOOL_} counts only when
 * it is near a key, or near HikariCP's name for one: the environment also holds other tools' variables.
 */
final class UnknownKeys {

    static final String SWITCH = "loompool.fail-on-unknown-keys";

    private static final Logger log = LoggerFactory.getLogger(UnknownKeys.class);
    private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of(PoolKeys.PREFIX);

    /**
     * A valid key: its name, its elements after {@code loompool.} in uniform form, whether keys go
     * under it, and whether those are a list's indexes ({@code replicas[0]}: {@code replicas.url}
     * binds nothing, so it is no key).
     */
    private record Key(String name, List<String> elements, boolean container, boolean list) {

        String joined() {
            return String.join("", elements);
        }
    }

    private static volatile List<Key> keys;

    /**
     * HikariCP's names put under {@code loompool.} ({@code LOOMPOOL_MAXIMUM_POOL_SIZE}, and
     * near them {@code LOOMPOOL_MAX_POOL_SIZE}): what a team moving from HikariCP writes. None is a
     * key; each suggests loompool's key for the same job, even where the name is far from it.
     */
    private static final List<Key> HIKARI_NAMES = HikariKeys.EQUIVALENT.entrySet().stream()
            .map(e -> new Key(e.getValue(), elements(ConfigurationPropertyName.of(PoolKeys.PREFIX + "." + e.getKey())),
                    false, false))
            .toList();

    private UnknownKeys() {
    }

    /** Fails (or warns, with the switch off) when a {@code loompool.*} key set in {@code environment} is not one. */
    static void check(Environment environment) {
        Map<String, String> unknown = new LinkedHashMap<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source instanceof IterableConfigurationPropertySource iterable) {
                boolean environmentVariables = source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource;
                // The JVM's system properties are shared too: tools put theirs under the same prefix
                // (this build's -Dloompool.matrix.skip reaches the tests' JVMs).
                boolean shared = environmentVariables || source.getUnderlyingSource() instanceof PropertySource<?> ps
                        && StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME.equals(ps.getName());
                iterable.filter(PREFIX::isAncestorOf).stream()
                        .filter(name -> !valid(name, environmentVariables) && !emptiedGroup(source, name)
                                && !unknown.containsKey(name.toString()))
                        .forEach(name -> {
                            Key nearest = nearest(name, environmentVariables);
                            // The environment and the system properties are shared with other tools (a CI's
                            // LOOMPOOL_TEST_POSTGRES_URL): there, only a near miss of a key is taken for a misspelling.
                            if (!shared || nearest != null) {
                                unknown.put(name.toString(), describe(source, name, nearest));
                            }
                        });
            }
        }
        if (unknown.isEmpty()) {
            return;
        }
        String problems = String.join("; ", unknown.values());
        if (!Binder.get(environment).bind(SWITCH, Boolean.class).orElse(true)) {
            log.warn("loompool ignores unknown keys ({}=false): {}", SWITCH, problems);
            return;
        }
        throw new LoomPoolStartupException("Invalid loompool configuration: " + problems,
                "Correct the key (the loompool README lists every key), or set " + SWITCH
                        + "=false to start anyway with one warning.", null);
    }

    private static boolean valid(ConfigurationPropertyName name, boolean environmentVariables) {
        List<String> elements = elements(name);
        String joined = String.join("", elements);
        for (Key key : keys()) {
            if (environmentVariables) {
                // LOOMPOOL_CIRCUIT_BREAKER_FAILURE_THRESHOLD splits where the words do, not where the keys do.
                if (joined.equals(key.joined()) || key.container() && underContainer(elements, key)) {
                    return true;
                }
            } else if (elements.equals(key.elements()) || key.container() && elements.size() > key.elements().size()
                    && elements.subList(0, key.elements().size()).equals(key.elements())
                    && (!key.list() || isIndex(elements.get(key.elements().size())))) {
                return true;
            }
        }
        return false;
    }

    /**
     * A group whose every key is commented out in YAML ({@code circuit-breaker:} with nothing under
     * it), which Boot reads as an empty value, or an empty object in SPRING_APPLICATION_JSON: nothing
     * is set, so nothing is wrong.
     */
    private static boolean emptiedGroup(ConfigurationPropertySource source, ConfigurationPropertyName name) {
        ConfigurationProperty property = source.getConfigurationProperty(name);
        if (property == null || !PoolKeys.emptied(property.getValue())) {
            return false;
        }
        List<String> elements = elements(name);
        return keys().stream().anyMatch(key -> key.elements().size() > elements.size()
                && key.elements().subList(0, elements.size()).equals(elements));
    }

    /** Whether some first elements, joined, are the container's key, and more follow (LOOMPOOL_DATASOURCEPROPERTIES_SSL). */
    private static boolean underContainer(List<String> elements, Key container) {
        StringBuilder head = new StringBuilder();
        for (int i = 0; i < elements.size() - 1; i++) {
            if (head.append(elements.get(i)).toString().equals(container.joined())) {
                return !container.list() || isIndex(elements.get(i + 1));
            }
        }
        return false;
    }

    private static boolean isIndex(String element) {
        return !element.isEmpty() && element.chars().allMatch(Character::isDigit);
    }

    /** The valid key nearest to {@code name}, or null when none is near enough to be what was meant. */
    private static Key nearest(ConfigurationPropertyName name, boolean environmentVariables) {
        List<String> elements = elements(name);
        String written = String.join("", elements);
        Key nearest = null;
        int best = Integer.MAX_VALUE;
        for (Key key : keys()) {
            int distance = EditDistance.between(written, key.joined());
            if (key.container() && elements.size() > key.elements().size()) {
                // loompool.data-source-property.ssl: the part that names the container is what is misspelled
                String head = environmentVariables
                        ? written.substring(0, Math.min(written.length(), key.joined().length()))
                        : String.join("", elements.subList(0, key.elements().size()));
                distance = Math.min(distance, EditDistance.between(head, key.joined()));
            }
            if (distance < best) {
                best = distance;
                nearest = key;
            }
        }
        if (nearest != null && best <= Math.max(2, nearest.joined().length() / 3)) {
            return nearest;
        }
        for (Key hikari : HIKARI_NAMES) {
            if (EditDistance.between(written, hikari.joined()) <= Math.max(2, hikari.joined().length() / 3)) {
                return hikari;
            }
        }
        return null;
    }

    /** "loompool.max-szie is not a loompool key; did you mean loompool.max-size? (set in …)", without the value. */
    private static String describe(ConfigurationPropertySource source, ConfigurationPropertyName name, Key nearest) {
        StringBuilder text = new StringBuilder(name.toString()).append(" is not a loompool key");
        if (nearest != null) {
            text.append("; did you mean ").append(nearest.name()).append('?');
        }
        ConfigurationProperty property = source.getConfigurationProperty(name);
        if (property != null && property.getOrigin() != null) {
            text.append(" (set in ").append(property.getOrigin()).append(')');
        }
        return text.toString();
    }

    private static List<String> elements(ConfigurationPropertyName name) {
        List<String> elements = new ArrayList<>();
        for (int i = PREFIX.getNumberOfElements(); i < name.getNumberOfElements(); i++) {
            elements.add(name.getElement(i, ConfigurationPropertyName.Form.UNIFORM));
        }
        return elements;
    }

    /** Read once: the class path does not change while the application runs. */
    private static List<Key> keys() {
        List<Key> known = keys;
        if (known == null) {
            List<Key> read = new ArrayList<>();
            PoolKeys.KEYS.forEach(key -> read.add(key(PoolKeys.PREFIX + "." + key, null)));
            read.add(key(SWITCH, null));
            KeyMetadata.loompoolKeys(UnknownKeys.class.getClassLoader()).forEach((name, type) -> read.add(key(name, type)));
            known = List.copyOf(read);
            keys = known;
        }
        return known;
    }

    /** The valid keys' names, for tests. */
    static Set<String> knownNames() {
        Set<String> names = new TreeSet<>();
        keys().forEach(key -> names.add(key.name()));
        return names;
    }

    /** A key of the metadata's {@code type} (null: a plain value). */
    private static Key key(String name, String type) {
        boolean list = type != null && (type.startsWith("java.util.List") || type.startsWith("java.util.Set")
                || type.endsWith("[]"));
        boolean map = type != null && (type.startsWith("java.util.Map") || type.startsWith("java.util.Properties"));
        return new Key(name, elements(ConfigurationPropertyName.of(name)), list || map, list);
    }
}
