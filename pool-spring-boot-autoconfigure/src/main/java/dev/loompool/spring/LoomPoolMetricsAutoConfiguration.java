package dev.loompool.spring;

import dev.loompool.jdbc.LoomPoolDataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The pool's Micrometer meters. It comes after the pool's configuration so that its condition sees
 * the pool; the listener still reaches the pool before it starts, because the pool's bean method
 * asks for its listeners only when it runs, after every bean is defined.
 */
@AutoConfiguration(after = LoomPoolAutoConfiguration.class)
@ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
@ConditionalOnBean(LoomPoolDataSource.class)
public final class LoomPoolMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LoomPoolMetrics loomPoolMetrics(ObjectProvider<LoomPoolDataSource> dataSource) {
        return new LoomPoolMetrics(dataSource::getObject); // a failure to bind fails the startup
    }
}
