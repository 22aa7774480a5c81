package dev.loompool.spring;

import com.zaxxer.hikari.HikariDataSource;
import dev.loompool.jdbc.LoomPoolDataSource;
import io.micrometer.core.instrument.*;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.metrics.DataSourcePoolMetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.*;

class ZzScratchMeterTest {

    ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class,
                LoomPoolMetricsAutoConfiguration.class, DataSourceAutoConfiguration.class, MetricsAutoConfiguration.class,
                SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                DataSourcePoolMetricsAutoConfiguration.class));
    }

    static void dump(String label, MeterRegistry r) {
        r.find("jdbc.connections.max").gauges().forEach(g -> System.out.println("PROBE " + label + " " + g.getId().getName() + g.getId().getTags() + " = " + g.value()));
    }

    @Configuration(proxyBeanMethods = false)
    static class LoomNamedOrdersPlusHikariOrders {
        @Bean @Primary LoomPoolDataSource dataSource() {
            LoomPoolDataSource ds = new LoomPoolDataSource();
            ds.setJdbcUrl(LoomPoolAutoConfigurationTest.h2()); ds.setPoolName("orders"); ds.setMaxSize(7); ds.setMinSize(0);
            return ds;
        }
        @Bean HikariDataSource orders() {
            HikariDataSource h = new HikariDataSource(); h.setJdbcUrl(LoomPoolAutoConfigurationTest.h2()); h.setMaximumPoolSize(3); return h;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class HikariOrdersPlusLoomOrdersDataSource {
        @Bean @Primary HikariDataSource orders() {
            HikariDataSource h = new HikariDataSource(); h.setJdbcUrl(LoomPoolAutoConfigurationTest.h2()); h.setMaximumPoolSize(3); return h;
        }
        @Bean LoomPoolDataSource ordersDataSource() {
            LoomPoolDataSource ds = new LoomPoolDataSource();
            ds.setJdbcUrl(LoomPoolAutoConfigurationTest.h2()); ds.setMaxSize(7); ds.setMinSize(0);
            return ds;
        }
    }

    @Test
    void control() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class,
                DataSourceAutoConfiguration.class, MetricsAutoConfiguration.class,
                SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                DataSourcePoolMetricsAutoConfiguration.class)).withUserConfiguration(LoomNamedOrdersPlusHikariOrders.class)
            .run(ctx -> dump("A-control(no loompool MeterFilter)", ctx.getBean(MeterRegistry.class)));
    }

    @Test
    void mixes() {
        runner().withUserConfiguration(LoomNamedOrdersPlusHikariOrders.class).run(ctx -> dump("A(loompool bean dataSource poolName=orders max 7; Hikari bean orders max 3)", ctx.getBean(MeterRegistry.class)));
        runner().withUserConfiguration(HikariOrdersPlusLoomOrdersDataSource.class).run(ctx -> dump("B(Hikari bean orders max 3; loompool bean ordersDataSource max 7)", ctx.getBean(MeterRegistry.class)));
    }
}
