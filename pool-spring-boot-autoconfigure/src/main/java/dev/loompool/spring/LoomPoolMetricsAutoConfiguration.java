package dev.loompool.spring;

import dev.loompool.jdbc.LoomPoolDataSource;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import org.springframework.beans.factory.ObjectProvider;
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

    /**
     * Boot's own {@code jdbc.connections.*} gauges name a data source after its bean ({@code dataSource});
     * a loompool's carry the pool's name instead, as its {@code db.client.connection.*} meters do.
     */
    @Bean
    MeterFilter loomPoolJdbcConnectionsName(ObjectProvider<PoolWiring> wiring) {
        return new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                if (!id.getName().startsWith("jdbc.connections.")) {
                    return id;
                }
                PoolWiring pools = wiring.getIfAvailable();
                String bootName = id.getTag("name");
                String poolName = pools == null ? null : pools.poolNameForBootMeterName(bootName);
                return poolName == null || poolName.equals(bootName) ? id : id.replaceTags(Tags.of(id.getTags()).and("name", poolName));
            }
        };
    }
}
