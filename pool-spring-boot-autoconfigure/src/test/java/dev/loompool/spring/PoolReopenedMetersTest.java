package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Scope;

/**
 * A pool closed and made again under the same name while the registry lives on (a refreshed bean,
 * Spring Cloud's {@code @RefreshScope}): HikariCP removes its meters at close, so the new pool's
 * meters are its own; loompool's must read the new pool too, not the closed one (NaN).
 */
class PoolReopenedMetersTest {

    private static final String SWITCH = "loompool.metrics.hikari-compatible=true";

    /** A pool bean made anew at each lookup, always named "orders", as a refresh-scoped one is. */
    @Configuration(proxyBeanMethods = false)
    static class RefreshedPool {
        @Bean(destroyMethod = "close")
        @Scope(ConfigurableBeanFactory.SCOPE_PROTOTYPE)
        LoomPoolDataSource orders() {
            LoomPoolDataSource ds = EveryPoolIsWiredTest.h2Pool("orders");
            ds.setMaxSize(3);
            return ds;
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                    LoomPoolMetricsAutoConfiguration.class, MetricsAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
            .withUserConfiguration(RefreshedPool.class).withPropertyValues(SWITCH);

    private static void borrowOnce(LoomPoolDataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("SELECT 1");
        }
    }

    @Test
    void aPoolMadeAgainUnderTheNameOfAClosedOneIsWiredAndItsMetersReadIt() {
        runner.run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            LoomPoolDataSource first = context.getBean(LoomPoolDataSource.class);
            borrowOnce(first);
            first.close();
            LoomPoolDataSource second = context.getBean(LoomPoolDataSource.class);
            second.setMaxSize(5);
            borrowOnce(second);
            assertThat(registry.get("hikaricp.connections.max").tag("pool", "orders").gauge().value()).isEqualTo(5);
            assertThat(registry.get("db.client.connection.max").tag(LoomPoolMeter.POOL_NAME, "orders").gauge().value())
                    .isEqualTo(5);
            second.close();
        });
    }

    /** The same without Spring's name check: the binder of the whole context, one pool closed, its namesake added. */
    @Test
    void theMetersOfAPoolAddedUnderAClosedOnesNameReadTheNewPool() throws SQLException {
        MeterRegistry registry = new SimpleMeterRegistry();
        LoomPoolMeters meters = new LoomPoolMeters(true);
        meters.bindTo(registry);
        LoomPoolDataSource first = EveryPoolIsWiredTest.h2Pool("orders");
        first.addPoolListener(meters.add(first));
        borrowOnce(first);
        first.close();
        LoomPoolDataSource second = EveryPoolIsWiredTest.h2Pool("orders");
        second.setMaxSize(5);
        second.addPoolListener(meters.add(second));
        try {
            borrowOnce(second);
            assertThat(registry.get("hikaricp.connections.max").tag("pool", "orders").gauge().value()).isEqualTo(5);
            assertThat(registry.get("hikaricp.connections.acquire").tag("pool", "orders").timer().count())
                    .as("the new pool's own meters, as HikariCP's after it removed the closed pool's").isEqualTo(1);
        } finally {
            second.close();
            meters.destroy();
        }
    }

    /** What a closed pool leaves while the context lives: gauges reading NaN, never a stale count. */
    @Test
    void aClosedPoolsGaugesReadNaNAndTheContextsCloseRemovesThem() throws SQLException {
        MeterRegistry registry = new SimpleMeterRegistry();
        LoomPoolMeters meters = new LoomPoolMeters(true);
        meters.bindTo(registry);
        LoomPoolDataSource ds = EveryPoolIsWiredTest.h2Pool("orders");
        ds.addPoolListener(meters.add(ds));
        borrowOnce(ds);
        assertThat(registry.get("hikaricp.connections.idle").tag("pool", "orders").gauge().value())
                .isEqualTo(ds.getPool().stats().idle()).isPositive();
        ds.close();
        for (String gauge : new String[] {"hikaricp.connections", "hikaricp.connections.active",
                "hikaricp.connections.idle", "hikaricp.connections.pending", "hikaricp.connections.max",
                "hikaricp.connections.min"}) {
            assertThat(registry.get(gauge).tag("pool", "orders").gauge().value()).as(gauge).isNaN();
        }
        meters.destroy();
        assertThat(registry.getMeters()).extracting(m -> m.getId().getName())
                .noneMatch(name -> name.startsWith("hikaricp") || name.startsWith("db.client"));
    }
}
