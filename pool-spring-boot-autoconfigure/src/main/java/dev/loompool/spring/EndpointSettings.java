package dev.loompool.spring;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.beans.PropertyDescriptor;
import java.lang.reflect.InvocationTargetException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.springframework.beans.BeanUtils;

/**
 * The settings {@code GET /actuator/loompool/{name}} shows: every JavaBean property of
 * {@link LoomPoolDataSource} that is read and written, so that a setting added to the data source
 * shows without anyone remembering the endpoint; read from its getters, which answer a started
 * pool's effective values (the limits changed at run time included). Secrets are never shown, and
 * the values that may carry one are shown another way ({@link #SHOWN_OTHERWISE}).
 */
final class EndpointSettings {

    /** Never shown, not even whether they are set: credentials. */
    static final Set<String> SECRETS = Set.of("password", "credentialsSupplier");
    /** Not the pool's settings: {@code url} is {@code jdbcUrl}'s alias; the other two are javax.sql.DataSource's, unused. */
    static final Set<String> NOT_SETTINGS = Set.of("url", "logWriter", "loginTimeout");
    /** Shown through a reading that hides what may be secret in them. */
    private static final Map<String, Function<LoomPoolDataSource, Object>> SHOWN_OTHERWISE = Map.of(
            "jdbcUrl", LoomPoolDataSource::getMaskedJdbcUrl,
            "replicas", LoomPoolDataSource::getMaskedReplicaUrls,
            // its literals hidden: SET app.api_key = '…' carries a key
            "connectionInitSql", LoomPoolDataSource::getMaskedConnectionInitSql,
            // the names only: a driver property's value may be a password or a key
            "dataSourceProperties", ds -> new TreeSet<>(ds.getDataSourceProperties().stringPropertyNames()),
            "bindObserver", ds -> ds.getBindObserver() == null ? null : ds.getBindObserver().getClass().getName());
    /** The settings, read once: the data source's class does not change. jdbcUrl and username first, as people look for them. */
    private static final PropertyDescriptor[] SHOWN = shown();

    private EndpointSettings() {
    }

    private static PropertyDescriptor[] shown() {
        Map<String, PropertyDescriptor> ordered = new LinkedHashMap<>();
        PropertyDescriptor[] all = BeanUtils.getPropertyDescriptors(LoomPoolDataSource.class);
        for (String first : new String[] {"jdbcUrl", "username"}) {
            for (PropertyDescriptor p : all) {
                if (p.getName().equals(first)) {
                    ordered.put(first, p);
                }
            }
        }
        for (PropertyDescriptor p : all) {
            if (p.getReadMethod() != null && p.getWriteMethod() != null && !SECRETS.contains(p.getName())
                    && !NOT_SETTINGS.contains(p.getName())) {
                ordered.putIfAbsent(p.getName(), p);
            }
        }
        return ordered.values().toArray(new PropertyDescriptor[0]);
    }

    /** {@code ds}'s settings by property name: Durations as ISO-8601 ({@code PT30S}), enums by name, null where unset. */
    static Map<String, Object> of(LoomPoolDataSource ds) {
        Map<String, Object> s = new LinkedHashMap<>();
        for (PropertyDescriptor p : SHOWN) {
            Function<LoomPoolDataSource, Object> other = SHOWN_OTHERWISE.get(p.getName());
            s.put(p.getName(), other != null ? other.apply(ds) : shown(read(ds, p)));
        }
        return s;
    }

    private static Object read(LoomPoolDataSource ds, PropertyDescriptor p) {
        try {
            return p.getReadMethod().invoke(ds);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("could not read setting " + p.getName() + " of pool '" + ds.getPoolName() + "'", e);
        }
    }

    private static Object shown(Object value) {
        if (value instanceof Duration d) {
            return d.toString();
        }
        if (value instanceof Enum<?> e) {
            return e.name();
        }
        return value;
    }
}
