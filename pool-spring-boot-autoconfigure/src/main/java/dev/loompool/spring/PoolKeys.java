package dev.loompool.spring;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.time.Duration;
import java.util.Set;
import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
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
     * the breaker has its nested keys, and the rest is wiring.
     */
    static final Set<String> NOT_KEYS = Set.of("jdbc-url", "url", "username", "password", "driver-class-name",
            "credentials-supplier", "bind-observer", "log-writer", "login-timeout",
            "circuit-breaker-failure-threshold", "circuit-breaker-open-duration");

    private PoolKeys() {
    }

    /** Binds; a refused value becomes a {@link LoomPoolStartupException} naming its key. */
    static void bind(Environment environment, LoomPoolDataSource ds) {
        Binder binder = Binder.get(environment);
        try {
            binder.bind(PREFIX, Bindable.ofInstance(ds), new OnlyPoolKeys());
            binder.bind(PREFIX + ".circuit-breaker", Bindable.ofInstance(new CircuitBreakerKeys(ds)));
        } catch (BindException e) {
            String key = e.getProperty() != null ? e.getProperty().getName().toString() : e.getName().toString();
            Throwable reason = e.getCause();
            while (reason.getCause() != null && !(reason instanceof IllegalArgumentException)) {
                reason = reason.getCause();
            }
            String origin = e.getProperty() != null && e.getProperty().getOrigin() != null
                    ? " (from " + e.getProperty().getOrigin() + ")" : "";
            Class<?> type = e.getTarget().getType().resolve();
            String allowed = type != null && type.isEnum() ? "; allowed: " + allowed(type) : "";
            throw new LoomPoolStartupException("Invalid loompool configuration: " + key + origin + ": "
                    + reason.getMessage() + allowed, "Change " + key + " in your configuration (the loompool README lists"
                    + " every key and its allowed values).", e);
        }
    }

    private static String allowed(Class<?> enumType) {
        StringBuilder names = new StringBuilder();
        for (Object constant : enumType.getEnumConstants()) {
            names.append(names.length() == 0 ? "" : ", ").append(((Enum<?>) constant).name());
        }
        return names.toString();
    }

    /** Leaves the bean properties that are not keys alone. */
    private static final class OnlyPoolKeys extends AbstractBindHandler {

        @Override
        public <T> Bindable<T> onStart(ConfigurationPropertyName name, Bindable<T> target, BindContext context) {
            if (context.getDepth() == 1 && NOT_KEYS.contains(name.getLastElement(ConfigurationPropertyName.Form.DASHED))) {
                return null;
            }
            return target;
        }
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
