package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.lang.management.ManagementFactory;
import java.util.Set;
import java.util.UUID;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jmx.JmxAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * loompool.register-mbeans in a Boot application (issue 30): the pool's MXBean lives as long as the
 * context, and Boot's own JMX export (spring.jmx.enabled) leaves the DataSource bean alone.
 */
class JmxTest {

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final String poolName = "jmx-" + UUID.randomUUID().toString().substring(0, 8);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class,
                    DataSourceAutoConfiguration.class, JmxAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + LoomPoolAutoConfigurationTest.h2(),
                    "loompool.pool-name=" + poolName, "loompool.register-mbeans=true");

    private ObjectName poolMBean() throws Exception {
        return new ObjectName("dev.loompool:type=Pool,name=" + poolName);
    }

    @Test
    void thePoolsMBeanIsThereWhileTheContextRunsAndGoneAfterItCloses() throws Exception {
        ConfigurableApplicationContext[] ran = new ConfigurableApplicationContext[1];
        runner.withPropertyValues("spring.jmx.enabled=true").run(context -> {
            assertThat(context).hasNotFailed();
            ran[0] = context;
            assertThat(server.isRegistered(poolMBean())).isTrue();
            assertThat(server.getAttribute(poolMBean(), "PoolName")).isEqualTo(poolName);
            assertThat(server.getAttribute(poolMBean(), "IdleConnections"))
                    .isEqualTo(context.getBean(LoomPoolDataSource.class).getPool().stats().idle());
            // Boot's exporter autodetects MBeans among the beans: the DataSource is none, so only ours names the pool
            Set<ObjectName> exported = server.queryNames(null, null);
            assertThat(exported).filteredOn(n -> n.toString().contains("LoomPoolDataSource")
                    || "dataSource".equals(n.getKeyProperty("name"))).isEmpty();
        });
        assertThat(ran[0].isActive()).isFalse();
        assertThat(server.isRegistered(poolMBean())).isFalse();
    }

    @Test
    void withoutTheKeyThereIsNoMBean() throws Exception {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                        LoomPoolAutoConfiguration.class, DataSourceAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + LoomPoolAutoConfigurationTest.h2(),
                        "loompool.pool-name=" + poolName)
                .run(context -> {
                    assertThat(context.getBean(LoomPoolDataSource.class).isRunning()).isTrue();
                    assertThat(server.isRegistered(poolMBean())).isFalse();
                });
    }

    /** Two contexts side by side in one JVM, as cached test contexts are, with one pool name: both start. */
    @Test
    void aSecondContextWithThePoolsNameStartsWithoutAnMBeanAndLeavesTheFirstOnesAlone() {
        runner.run(first -> {
            assertThat(first).hasNotFailed();
            runner.run(second -> assertThat(second).hasNotFailed());
            assertThat(server.isRegistered(poolMBean())).as("the first pool's MBean stays").isTrue();
            assertThat(server.getAttribute(poolMBean(), "PoolName")).isEqualTo(poolName);
        });
    }
}
