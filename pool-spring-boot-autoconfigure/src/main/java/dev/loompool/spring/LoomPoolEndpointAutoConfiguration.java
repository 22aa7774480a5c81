package dev.loompool.spring;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import dev.loompool.jdbc.LoomPoolDataSource;

/** The {@code loompool} Actuator endpoint, over every {@link LoomPoolDataSource} in the context. */
@AutoConfiguration(after = LoomPoolAutoConfiguration.class)
@ConditionalOnClass(name = {"org.springframework.boot.actuate.endpoint.annotation.Endpoint",
        "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint"})
public final class LoomPoolEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(LoomPoolEndpoint.class)
    LoomPoolEndpoint loomPoolEndpoint(ListableBeanFactory beans) {
        return new LoomPoolEndpoint(() -> PoolWiring.pools(beans));
    }
}
