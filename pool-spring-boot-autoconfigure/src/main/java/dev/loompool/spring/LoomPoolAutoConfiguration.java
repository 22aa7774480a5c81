package dev.loompool.spring;

import dev.loompool.PoolListener;
import dev.loompool.jdbc.Credentials;
import dev.loompool.jdbc.LoomPoolDataSource;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;
import org.springframework.core.env.Environment;

/**
 * Makes loompool the application's {@link DataSource}. It runs before Boot's own data source
 * auto-configuration, so with the starter on the class path an application gets loompool, not
 * Hikari, without a code change, in the application and in Boot's JDBC test slices (listed in
 * the slices' {@code META-INF/spring/*.imports}). It follows the user's explicit choices as
 * Boot's own pools do: it backs off when the application defines its own data source, when
 * {@link DataSourceAutoConfiguration} is excluded, and when {@code spring.datasource.type} names
 * another pool.
 */
@AutoConfiguration(before = DataSourceAutoConfiguration.class, after = LoomPoolWiringAutoConfiguration.class)
@ConditionalOnClass({DataSource.class, LoomPoolDataSource.class})
@Conditional(OnBootWouldBuildAPool.class)
@EnableConfigurationProperties(DataSourceProperties.class)
public final class LoomPoolAutoConfiguration {

    /**
     * Boot's own {@code spring.datasource.connection-fetch=lazy}, which Boot applies only to a pool
     * of its own making: the auto-configured loompool is wrapped in the same
     * {@code LazyConnectionDataSourceProxy}. Redundant with loompool's own lazy binding, but the
     * user asked for it.
     */
    @Bean
    @ConditionalOnProperty(name = "spring.datasource.connection-fetch", havingValue = "lazy")
    static LazyConnectionFetch loomPoolLazyConnectionFetch() {
        return new LazyConnectionFetch();
    }

    /** Wraps the auto-configured pool only: a pool the application defines is its own business, as with Boot. */
    static final class LazyConnectionFetch implements BeanPostProcessor, BeanFactoryAware {

        private ConfigurableListableBeanFactory beans;

        @Override
        public void setBeanFactory(BeanFactory beanFactory) {
            beans = (ConfigurableListableBeanFactory) beanFactory;
        }

        @Override
        public Object postProcessAfterInitialization(Object bean, String beanName) {
            if (bean instanceof LoomPoolDataSource ds && beans.containsBeanDefinition(beanName)
                    && beans.getMergedBeanDefinition(beanName) instanceof RootBeanDefinition definition
                    && definition.getResolvedFactoryMethod() != null
                    && definition.getResolvedFactoryMethod().getDeclaringClass() == LoomPoolAutoConfiguration.class) {
                return new LazyConnectionDataSourceProxy(ds);
            }
            return bean;
        }
    }

    /**
     * {@code loompool.*} is bound onto the pool itself, over the {@code spring.datasource.hikari.*}
     * keys an application that comes from HikariCP still has (see {@link HikariKeys}); a
     * {@code loompool.*} key nothing reads stops the startup (see {@link UnknownKeys}); the connection comes from the connection
     * details, credentials from a {@code Supplier<Credentials>} bean when there is one. Wired
     * (pinning, meters) and started here, so that a wrong setting or a dead database stops the startup.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(DataSource.class)
    LoomPoolDataSource dataSource(DataSourceProperties dataSourceProperties,
            ObjectProvider<JdbcConnectionDetails> connectionDetails, ObjectProvider<Supplier<Credentials>> credentials,
            ObjectProvider<PoolListener> poolListeners, PoolWiring wiring, Environment environment) {
        JdbcConnectionDetails details = connectionDetails.getIfAvailable(() -> new FromProperties(dataSourceProperties));
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setPoolName(dataSourceProperties.getName());
        ds.setJdbcUrl(details.getJdbcUrl());
        ds.setUsername(details.getUsername());
        ds.setPassword(details.getPassword());
        ds.setDriverClassName(details.getDriverClassName());
        // HikariCP's keys whose loompool key is unset (its connection keys over the details above, as
        // under HikariCP), then loompool.*; HikariCP's minimum-idle and start rules need both.
        HikariKeys.Applied fromHikari = HikariKeys.apply(environment, ds);
        PoolKeys.bind(environment, ds);
        fromHikari = HikariKeys.applyHikariRules(environment, fromHikari, ds);
        UnknownKeys.check(environment);
        ds.setCredentialsSupplier(credentials.getIfUnique());
        poolListeners.orderedStream().forEach(ds::addPoolListener);
        wiring.wire(ds, "dataSource");
        fromHikari.log(ds.getPoolName());
        PoolStartup.start(ds);
        return ds;
    }

    /** spring.datasource.* as connection details, when no JdbcConnectionDetails bean (Testcontainers, Compose) exists. */
    private static final class FromProperties implements JdbcConnectionDetails {

        private final DataSourceProperties properties;

        FromProperties(DataSourceProperties properties) {
            this.properties = properties;
        }

        @Override
        public String getUsername() {
            return properties.determineUsername();
        }

        @Override
        public String getPassword() {
            return properties.determinePassword();
        }

        @Override
        public String getJdbcUrl() {
            return properties.determineUrl();
        }

        @Override
        public String getDriverClassName() {
            return properties.determineDriverClassName();
        }
    }
}
