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
     * Where loompool's keys are not, but a team writes them: beside HikariCP's
     * ({@code spring.datasource.hikari.*}), or with Spring's prefix ({@code SPRING_LOOMPOOL_MAX_SIZE}).
     * Nothing reads them, in any source.
     */
    private static final List<ConfigurationPropertyName> MISPLACED = List.of(
            ConfigurationPropertyName.of("spring.datasource.loompool"), ConfigurationPropertyName.of("spring.loompool"));

    private static final ConfigurationPropertyName DRIVER_PROPERTIES = PREFIX.append("data-source-properties");

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
                            // LOOMPOOL_TEST_POSTGRES_URL, a Kubernetes service's LOOMPOOL_REPLICA_SERVICE_HOST):
                            // there, only a near miss of a key is taken for a misspelling.
                            if (!shared || nearest != null && !anotherToolsName(elements(name), nearest)) {
                                unknown.put(name.toString(), describe(source, name, nearest));
                            }
                        });
                iterable.filter(DRIVER_PROPERTIES::isAncestorOf).stream()
                        .filter(name -> indentedPoolKey(name) != null && !unknown.containsKey(name.toString()))
                        .forEach(name -> unknown.put(name.toString(), origin(new StringBuilder(name.toString())
                                .append(" is a pool key indented into the driver's properties, where no driver reads it;")
                                .append(" did you mean ").append(indentedPoolKey(name)).append('?'), source, name)));
                iterable.filter(name -> MISPLACED.stream().anyMatch(p -> p.isAncestorOf(name))).stream()
                        .filter(name -> !unknown.containsKey(name.toString()))
                        .forEach(name -> unknown.put(name.toString(), misplaced(source, name)));
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
                "Correct the key (docs/configuration.md in the loompool repository lists every key), or set " + SWITCH
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
                String rest = environmentVariables ? written.substring(head.length())
                        : elements.get(key.elements().size());
                // a list is followed by an index: LOOMPOOL_REPLICAS_MAX_SIZE is a key misspelled, not an entry
                int notAnEntry = key.list() && (rest.isEmpty() || !Character.isDigit(rest.charAt(0))) ? 2 : 0;
                distance = Math.min(distance, EditDistance.between(head, key.joined()) + notAnEntry);
            }
            if (distance < best) {
                best = distance;
                nearest = key;
            }
        }
        if (nearest != null && best <= Math.max(2, nearest.joined().length() / 3)) {
            return nearest;
        }
        String meant = OtherPoolNames.keyFor(written);
        return meant == null ? null : key(meant, null);
    }

    /**
     * Whether a name under {@code LOOMPOOL_} in a shared source, near {@code nearest}, is rather
     * another tool's: a Kubernetes or Docker service link of a service named loompool-something
     * ({@code LOOMPOOL_REPLICA_SERVICE_HOST}, {@code LOOMPOOL_REPLICA_PORT_5432_TCP_ADDR}), or a key
     * with a word added ({@code LOOMPOOL_DB_SCHEMA}): a typo changes letters, not whole words.
     */
    private static boolean anotherToolsName(List<String> words, Key nearest) {
        int n = words.size();
        String last = words.get(n - 1);
        boolean serviceLink = n >= 2 && words.get(n - 2).equals("service") && (last.equals("host") || last.equals("port"))
                || n >= 3 && words.get(n - 3).equals("service") && words.get(n - 2).equals("port")
                || last.equals("port") || words.contains("port") && words.stream().anyMatch(
                        w -> w.equals("tcp") || w.equals("udp") || w.equals("sctp"));
        if (serviceLink) {
            return true;
        }
        String key = nearest.joined();
        for (int from = 0; from < n; from++) {
            StringBuilder run = new StringBuilder();
            for (int to = from; to < n; to++) {
                run.append(words.get(to));
                if (run.toString().equals(key) && to - from + 1 < n) {
                    return true; // the key whole, with words around it
                }
            }
        }
        return false;
    }

    /**
     * A YAML key indented one level too deep, into the driver's properties, the last group of the
     * block ({@code data-source-properties:\n  sslmode: …\n  max-size: 3}): a dashed name that is a
     * pool key. Drivers name their properties in camel case ({@code readOnly}, {@code sslmode}), so a
     * dashed one is no driver's. Returns the key meant, or null.
     */
    private static String indentedPoolKey(ConfigurationPropertyName name) {
        if (name.getNumberOfElements() != DRIVER_PROPERTIES.getNumberOfElements() + 1) {
            return null;
        }
        String written = name.getLastElement(ConfigurationPropertyName.Form.ORIGINAL);
        if (written.indexOf('-') < 0 || !ConfigurationPropertyName.isValid(PoolKeys.PREFIX + "." + written)) {
            return null;
        }
        ConfigurationPropertyName asKey = ConfigurationPropertyName.of(PoolKeys.PREFIX + "." + written);
        return keys().stream().anyMatch(k -> !k.container() && k.elements().equals(elements(asKey))) ? asKey.toString() : null;
    }

    /** "spring.datasource.loompool.max-size is not read: loompool's keys are under loompool.; did you mean loompool.max-size?" */
    private static String misplaced(ConfigurationPropertySource source, ConfigurationPropertyName name) {
        ConfigurationPropertyName prefix = MISPLACED.stream().filter(p -> p.isAncestorOf(name)).findFirst().orElseThrow();
        ConfigurationPropertyName asKey = PREFIX;
        for (int i = prefix.getNumberOfElements(); i < name.getNumberOfElements(); i++) {
            asKey = asKey.append(name.getElement(i, ConfigurationPropertyName.Form.ORIGINAL));
        }
        Key meant = valid(asKey, false) ? key(asKey.toString(), null) : nearest(asKey, false);
        StringBuilder text = new StringBuilder(name.toString()).append(" is not read: loompool's keys are under loompool.");
        if (meant != null) {
            text.append("; did you mean ").append(meant.name()).append('?');
        }
        return origin(text, source, name);
    }

    /** "loompool.max-szie is not a loompool key; did you mean loompool.max-size? (set in …)", without the value. */
    private static String describe(ConfigurationPropertySource source, ConfigurationPropertyName name, Key nearest) {
        StringBuilder text = new StringBuilder(name.toString()).append(" is not a loompool key");
        if (nearest != null) {
            text.append("; did you mean ").append(nearest.name()).append('?');
        }
        return origin(text, source, name);
    }

    private static String origin(StringBuilder text, ConfigurationPropertySource source, ConfigurationPropertyName name) {
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
