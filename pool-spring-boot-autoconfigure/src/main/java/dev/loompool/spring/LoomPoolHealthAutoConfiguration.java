package dev.loompool.spring;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The {@code loompool} health contributor, over every {@link LoomPoolDataSource} bean however it was
 * made: one pool is one indicator, several are a composite by bean name, as Boot's {@code db}
 * contributor does. DOWN while a pool's circuit breaker is open.
 */
@AutoConfiguration(after = {LoomPoolAutoConfiguration.class, DataSourceAutoConfiguration.class})
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
@ConditionalOnBean(DataSource.class)
public final class LoomPoolHealthAutoConfiguration {

    /** On the method, not the class: its condition class is loaded only once the class check passed. */
    @Bean
    @ConditionalOnEnabledHealthIndicator("loompool")
    @ConditionalOnMissingBean(name = "loompoolHealthIndicator")
    HealthContributor loompoolHealthIndicator(ListableBeanFactory beans) {
        Map<String, LoomPoolDataSource> pools = PoolWiring.pools(beans);
        if (pools.size() == 1) {
            return new LoomPoolHealthIndicator(pools.values().iterator().next());
        }
        return CompositeHealthContributor.fromMap(pools, LoomPoolHealthIndicator::new);
    }

}
