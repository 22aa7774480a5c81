package dev.loompool.spring;

import dev.loompool.jdbc.LoomPoolDataSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;

/** The {@code loompool} health contributor: DOWN while the circuit breaker is open. */
@AutoConfiguration(after = LoomPoolAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
@ConditionalOnBean(LoomPoolDataSource.class)
public final class LoomPoolHealthAutoConfiguration {

    /** On the method, not the class: its condition class is loaded only once the class check passed. */
    @Bean
    @ConditionalOnEnabledHealthIndicator("loompool")
    @ConditionalOnMissingBean(name = "loompoolHealthIndicator")
    LoomPoolHealthIndicator loompoolHealthIndicator(LoomPoolDataSource dataSource) {
        return new LoomPoolHealthIndicator(dataSource);
    }
}
