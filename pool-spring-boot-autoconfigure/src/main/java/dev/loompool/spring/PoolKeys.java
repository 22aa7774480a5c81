package dev.loompool.spring;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.beans.PropertyDescriptor;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertyState;
import org.springframework.core.env.Environment;

/**
 * Binds {@code loompool.*} straight onto a {@link LoomPoolDataSource}, as Boot binds
 * {@code spring.datasource.hikari.*} onto a Hikari pool: the pool's own setters are the one list of
 * settings, their defaults are the pool's, and a value a setter refuses fails the binding with the
 * key, where it came from and the setter's reason.
 */
final class PoolKeys {

    static final String PREFIX = "loompool";

    /**
     * Bean properties that are not {@code loompool.*} keys: the connection comes from
     * {@code spring.datasource.*} or a {@code JdbcConnectionDetails} bean, credentials from a bean,
     * the breaker has its nested keys, and the rest is wiring. Setting one fails, naming where it goes.
     */
    static final Map<String, String> NOT_KEYS = Map.ofEntries(
            Map.entry("jdbc-url", "spring.datasource.url"), Map.entry("url", "spring.datasource.url"),
            Map.entry("username", "spring.datasource.username"), Map.entry("password", "spring.datasource.password"),
            Map.entry("driver-class-name", "spring.datasource.driver-class-name"),
            Map.entry("credentials-supplier", "a Supplier<Credentials> bean"),
            Map.entry("bind-observer", "a BindObserver bean"), Map.entry("log-writer", "nothing (not used)"),
            Map.entry("login-timeout", "spring.datasource.url (the driver's connect timeout)"),
            Map.entry("circuit-breaker-failure-threshold", "loompool.circuit-breaker.failure-threshold"),
            Map.entry("circuit-breaker-open-duration", "loompool.circuit-breaker.open-duration"));

    /** The keys: the pool's writable bean properties, but for the ones above. Getters alone are never bound into. */
    static final Set<String> KEYS = keys();

    private PoolKeys() {
    }

    /** Binds; a refused value becomes a {@link LoomPoolStartupException} naming its key. */
    static void bind(Environment environment, LoomPoolDataSource ds) {
        Binder binder = Binder.get(environment);
        try {
            binder.bind(PREFIX, Bindable.ofInstance(ds), new OnlyPoolKeys());
            binder.bind(PREFIX + ".circuit-breaker", Bindable.ofInstance(new CircuitBreakerKeys(ds)), new EmptiedGroup());
        } catch (BindException e) {
            throw refused(e, "");
        }
    }

    /** The key a refused binding was at, in Boot's canonical form. */
    static String key(BindException e) {
        return e.getProperty() != null ? e.getProperty().getName().toString() : e.getName().toString();
    }

    /**
     * The startup failure for a value the pool refused: its key, where it came from, the setter's
     * reason and, for an enum, the allowed values. {@code appliedAs} follows the key, for a key that
     * is not loompool's own (" (applied as loompool.max-size)").
     */
    static LoomPoolStartupException refused(BindException e, String appliedAs) {
        String key = key(e);
        Throwable reason = e.getCause();
        while (reason.getCause() != null && !(reason instanceof IllegalArgumentException)) {
            reason = reason.getCause();
        }
        String origin = e.getProperty() != null && e.getProperty().getOrigin() != null
                ? " (from " + e.getProperty().getOrigin() + ")" : "";
        Class<?> type = e.getTarget().getType().resolve();
        String allowed = type != null && type.isEnum() ? "; allowed: " + allowed(type) : "";
        return new LoomPoolStartupException("Invalid loompool configuration: " + key + origin + appliedAs + ": "
                + reason.getMessage() + allowed, "Change " + key + " in your configuration (docs/configuration.md in the loompool"
                + " repository lists every key and its allowed values).", e);
    }

    private static String allowed(Class<?> enumType) {
        StringBuilder names = new StringBuilder();
        for (Object constant : enumType.getEnumConstants()) {
            names.append(names.length() == 0 ? "" : ", ").append(((Enum<?>) constant).name());
        }
        return names.toString();
    }

    private static Set<String> keys() {
        Set<String> keys = new TreeSet<>();
        for (PropertyDescriptor p : BeanUtils.getPropertyDescriptors(LoomPoolDataSource.class)) {
            String key = DataObjectPropertyName.toDashedForm(p.getName());
            if (p.getWriteMethod() != null && !NOT_KEYS.containsKey(key)) {
                keys.add(key);
            }
        }
        return Collections.unmodifiableSet(keys);
    }

    /**
     * Binds the keys only: a getter-only property ({@code connection}, {@code pool}) must never be
     * bound into (the binder would call the getter), and a property that is not a key, set under
     * {@code loompool.}, fails instead of being ignored. A {@code loompool:} block whose every key is
     * commented out is an emptied group too.
     */
    private static final class OnlyPoolKeys extends EmptiedGroup {

        @Override
        public <T> Bindable<T> onStart(ConfigurationPropertyName name, Bindable<T> target, BindContext context) {
            if (context.getDepth() != 1) {
                return target;
            }
            String key = name.getLastElement(ConfigurationPropertyName.Form.DASHED);
            if (KEYS.contains(key)) {
                return target;
            }
            String instead = NOT_KEYS.get(key);
            // LOOMPOOL_CIRCUIT_BREAKER_FAILURE_THRESHOLD reads as both the flat and the nested key: the nested one binds it.
            boolean alsoTheRightKey = instead != null && instead.startsWith(PREFIX + ".")
                    && isSet(ConfigurationPropertyName.of(instead), context);
            if (instead != null && !alsoTheRightKey && isSet(name, context)) {
                throw new IllegalArgumentException(name + " is not a loompool key; set " + instead + " instead");
            }
            return null;
        }

        private static boolean isSet(ConfigurationPropertyName name, BindContext context) {
            return PoolKeys.isSet(name, context.getSources());
        }
    }

    /** Whether {@code name}, in any relaxed form, or a key under it is set in one of {@code sources}. */
    static boolean isSet(ConfigurationPropertyName name, Iterable<ConfigurationPropertySource> sources) {
        for (ConfigurationPropertySource source : sources) {
            if (source.getConfigurationProperty(name) != null
                    || source.containsDescendantOf(name) == ConfigurationPropertyState.PRESENT) {
                return true;
            }
        }
        return false;
    }

    /**
     * A group whose every key is commented out in YAML ({@code circuit-breaker:} with nothing under
     * it) reads as an empty value, and an empty JSON object as an empty map, which no converter turns
     * into the group's object: nothing is set.
     */
    private static class EmptiedGroup extends AbstractBindHandler {

        @Override
        public Object onFailure(ConfigurationPropertyName name, Bindable<?> target, BindContext context, Exception error)
                throws Exception {
            if (context.getDepth() == 0 && emptied(valueOf(name, context))) {
                return null;
            }
            return super.onFailure(name, target, context, error);
        }

        /** The group's own value, looked up again: binding its bean properties cleared the context's. */
        private static Object valueOf(ConfigurationPropertyName name, BindContext context) {
            for (ConfigurationPropertySource source : context.getSources()) {
                org.springframework.boot.context.properties.source.ConfigurationProperty property =
                        source.getConfigurationProperty(name);
                if (property != null) {
                    return property.getValue();
                }
            }
            return null;
        }
    }

    /**
     * The value of a group with nothing in it: YAML's {@code ""}, or the empty object or list
     * SPRING_APPLICATION_JSON keeps as it is (a Helm chart's {@code toJson} of its values).
     */
    static boolean emptied(Object value) {
        return "".equals(value) || value instanceof java.util.Map<?, ?> map && map.isEmpty()
                || value instanceof java.util.Collection<?> collection && collection.isEmpty();
    }

    /** {@code loompool.circuit-breaker.*}, the nested keys of the pool's two circuit-breaker setters. */
    static final class CircuitBreakerKeys {

        private final LoomPoolDataSource ds;

        CircuitBreakerKeys(LoomPoolDataSource ds) {
            this.ds = ds;
        }

        public int getFailureThreshold() {
            return ds.getCircuitBreakerFailureThreshold();
        }

        public void setFailureThreshold(int failureThreshold) {
            ds.setCircuitBreakerFailureThreshold(failureThreshold);
        }

        public Duration getOpenDuration() {
            return ds.getCircuitBreakerOpenDuration();
        }

        public void setOpenDuration(Duration openDuration) {
            ds.setCircuitBreakerOpenDuration(openDuration);
        }
    }
}
