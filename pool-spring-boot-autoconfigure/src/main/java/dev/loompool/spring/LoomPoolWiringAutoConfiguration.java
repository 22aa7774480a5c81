package dev.loompool.spring;

import dev.loompool.jdbc.BindObserver;
import dev.loompool.jdbc.LoomPoolDataSource;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnCheckpointRestore;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.jdbc.DataSourceUnwrapper;
import org.springframework.boot.jdbc.metadata.DataSourcePoolMetadataProvider;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.context.annotation.Role;

/**
 * What every {@link LoomPoolDataSource} bean gets, whoever made it: transaction pinning and meters
 * ({@link PoolWiring}), and Boot's pool metadata (the {@code jdbc.connections.*} gauges). Unlike
 * {@link LoomPoolAutoConfiguration} it does not back off when the application builds its own
 * data source: that is when it matters most.
 */
@AutoConfiguration
@ConditionalOnClass({DataSource.class, LoomPoolDataSource.class})
@ImportRuntimeHints(LoomPoolRuntimeHints.class)
public final class LoomPoolWiringAutoConfiguration {

    /** Static, and dependencies through providers: a post-processor is made before the other beans. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static PoolWiring loomPoolWiring(ObjectProvider<BindObserver> bindObserver, ObjectProvider<PoolMeters> meters) {
        return new PoolWiring(bindObserver, meters);
    }

    /** An own pool bound from a HikariCP group: its HikariCP names would bind nothing ({@link OwnBeanHikariNames}). */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static OwnBeanHikariNames loomPoolOwnBeanHikariNames() {
        return new OwnBeanHikariNames();
    }

    @Bean
    DataSourcePoolMetadataProvider loomPoolDataSourcePoolMetadataProvider() {
        return dataSource -> {
            LoomPoolDataSource loom = DataSourceUnwrapper.unwrap(dataSource, LoomPoolDataSource.class);
            return loom == null ? null : new LoomPoolDataSourceMetadata(loom);
        };
    }

    /** Only where checkpoint/restore can happen (org.crac on the class path), as for Boot's Hikari. */
    @Bean
    @ConditionalOnCheckpointRestore
    CheckpointRestore loomPoolCheckpointRestore(ApplicationContext context) {
        return new CheckpointRestore(context);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.transaction.support.TransactionSynchronizationManager")
    static class TransactionPinningConfiguration {

        @Bean
        @ConditionalOnMissingBean(BindObserver.class)
        BindObserver loomPoolTransactionPinning() {
            return new SpringTransactionPinning();
        }
    }
}
