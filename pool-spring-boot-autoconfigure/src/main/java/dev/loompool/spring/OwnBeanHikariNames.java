package dev.loompool.spring;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.context.properties.ConfigurationPropertiesBean;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;

/**
 * An application's own {@link LoomPoolDataSource} bound with {@code @ConfigurationProperties} from
 * the group its HikariCP bean was bound from ({@code app.datasource.orders.hikari}): Boot binds the
 * names both pools share ({@code auto-commit}, {@code idle-timeout}) and drops HikariCP's others
 * ({@code maximum-pool-size}) without a word, since unknown fields are ignored. Those stop the
 * start here, each with the property to write instead, before the pool is used with other sizes.
 */
final class OwnBeanHikariNames implements BeanPostProcessor, ApplicationContextAware {

    private ApplicationContext context;

    @Override
    public void setApplicationContext(ApplicationContext context) {
        this.context = context;
    }

    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (!(bean instanceof LoomPoolDataSource) || context == null) {
            return bean;
        }
        ConfigurationPropertiesBean bound = ConfigurationPropertiesBean.get(context, bean, beanName);
        if (bound == null || bound.getAnnotation().prefix().isEmpty() && bound.getAnnotation().value().isEmpty()) {
            return bean;
        }
        String prefix = bound.getAnnotation().prefix().isEmpty() ? bound.getAnnotation().value()
                : bound.getAnnotation().prefix();
        Map<String, String> renamed = renamed(ConfigurationPropertyName.of(prefix));
        if (!renamed.isEmpty()) {
            StringBuilder names = new StringBuilder();
            renamed.forEach((hikari, loompool) -> names.append(names.length() == 0 ? "" : ", ").append(prefix).append('.')
                    .append(hikari).append(" (write ").append(prefix).append('.').append(loompool).append(')'));
            throw new LoomPoolStartupException("The LoomPoolDataSource bean '" + beanName + "' is bound from " + prefix
                    + ", where HikariCP's names are set that no LoomPoolDataSource property has, so they would bind"
                    + " nothing: " + names,
                    "Rename these keys to loompool's names (each given above), or keep HikariDataSource for this bean.",
                    null);
        }
        return bean;
    }

    /** HikariCP's names set under {@code prefix} whose loompool property is named otherwise, and that name. */
    private Map<String, String> renamed(ConfigurationPropertyName prefix) {
        Map<String, String> renamed = new TreeMap<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(context.getEnvironment())) {
            if (source instanceof IterableConfigurationPropertySource iterable) {
                iterable.filter(prefix::isAncestorOf).stream().forEach(name -> {
                    StringBuilder rest = new StringBuilder();
                    for (int i = prefix.getNumberOfElements(); i < name.getNumberOfElements(); i++) {
                        rest.append(name.getElement(i, ConfigurationPropertyName.Form.UNIFORM));
                        String written = rest.toString();
                        HikariKeys.EQUIVALENT.forEach((hikari, loompoolKey) -> {
                            String property = loompoolKey.substring(PoolKeys.PREFIX.length() + 1);
                            if (!hikari.equals(property) && hikari.replace("-", "").equals(written)) {
                                renamed.put(hikari, property);
                            }
                        });
                    }
                });
            }
        }
        return renamed;
    }
}
