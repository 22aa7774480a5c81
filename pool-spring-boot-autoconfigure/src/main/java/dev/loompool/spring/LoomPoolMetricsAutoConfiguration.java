package dev.loompool.spring;

import dev.loompool.jdbc.LoomPoolDataSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The Micrometer meters of every {@link LoomPoolDataSource} bean: one binder over all of them,
 * each pool added by {@link PoolWiring} before it starts, however it was made.
 */
@AutoConfiguration
@ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
public final class LoomPoolMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LoomPoolMeters loomPoolMeters() {
        return new LoomPoolMeters();
    }
}
