package dev.loompool.spring;

import dev.loompool.jdbc.LoomPoolDataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Metrics, health and the Actuator endpoint for loompool, each switched on by its library being
 * on the class path. It comes after the pool's configuration so that its conditions see the pool;
 * the metrics listener still reaches the pool before it starts, because the pool's bean method
 * asks for its listeners only when it runs, after every bean is defined.
 */
@AutoConfiguration(after = LoomPoolAutoConfiguration.class)
@ConditionalOnBean(LoomPoolDataSource.class)
public final class LoomPoolObservabilityConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
    static class MetricsConfiguration {

        @Bean
        @ConditionalOnMissingBean(LoomPoolMetrics.class)
        LoomPoolMetrics loomPoolMetrics(ObjectProvider<LoomPoolDataSource> dataSource) {
            return new LoomPoolMetrics(dataSource::getObject); // a failure to bind fails the startup
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    @ConditionalOnEnabledHealthIndicator("loompool")
    static class HealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "loompoolHealthIndicator")
        LoomPoolHealthIndicator loompoolHealthIndicator(LoomPoolDataSource dataSource) {
            return new LoomPoolHealthIndicator(dataSource);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
    @ConditionalOnAvailableEndpoint(LoomPoolEndpoint.class)
    static class EndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean
        LoomPoolEndpoint loomPoolEndpoint(ListableBeanFactory beans) {
            return new LoomPoolEndpoint(() -> beans.getBeansOfType(LoomPoolDataSource.class));
        }
    }
}
