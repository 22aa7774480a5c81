package dev.loompool.spring;

import dev.loompool.jdbc.LoomPoolDataSource;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The Micrometer meters of every {@link LoomPoolDataSource} bean: one binder over all of them,
 * each pool added by {@link PoolWiring} before it starts, however it was made.
 */
@AutoConfiguration
@ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
public final class LoomPoolMetricsAutoConfiguration {

    /** Not a pool setting (it is not bound onto the pool): it is in the configuration metadata by hand. */
    static final String HIKARI_COMPATIBLE = "loompool.metrics.hikari-compatible";

    /** A value that is no boolean fails the startup through Boot's own bind-failure report, naming the key. */
    @Bean
    @ConditionalOnMissingBean
    LoomPoolMeters loomPoolMeters(Environment environment) {
        return new LoomPoolMeters(Binder.get(environment).bind(HIKARI_COMPATIBLE, Boolean.class).orElse(false));
    }

    /**
     * Boot's own {@code jdbc.connections.*} gauges name a data source after its bean ({@code dataSource});
     * a loompool's carry the pool's name instead, as its {@code db.client.connection.*} meters do. Only
     * where that is unambiguous: never onto a name another data source's gauges already use, and
     * not when Boot gives two beans the same name ({@code orders} and {@code ordersDataSource}).
     */
    @Bean
    MeterFilter loomPoolJdbcConnectionsName(ObjectProvider<PoolWiring> wiring, ListableBeanFactory beans) {
        return new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                if (!id.getName().startsWith("jdbc.connections.")) {
                    return id;
                }
                PoolWiring pools = wiring.getIfAvailable();
                String bootName = id.getTag("name");
                String poolName = pools == null ? null : pools.poolNameForBootMeterName(bootName);
                if (poolName == null || poolName.equals(bootName)) {
                    return id;
                }
                List<String> bootNames = Arrays.stream(beans.getBeanNamesForType(DataSource.class, true, false))
                        .map(PoolWiring::bootMeterName).toList();
                if (Collections.frequency(bootNames, bootName) != 1 || bootNames.contains(poolName)) {
                    return id;
                }
                return id.replaceTags(Tags.of(id.getTags()).and("name", poolName));
            }
        };
    }
}
