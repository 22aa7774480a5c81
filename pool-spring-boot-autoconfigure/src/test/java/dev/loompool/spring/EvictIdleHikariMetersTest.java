package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.Statement;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code DELETE /actuator/loompool/{name}/idle} (the data source's {@code evictIdle}) is an
 * operator's action, the counterpart of HikariCP's {@code softEvictConnections()}, which records
 * nothing in HikariCP's meters: no acquire, no usage, no timeout. The application borrowed nothing,
 * so the dashboards (borrow rate, usage time) and the timeout alert must not move.
 */
class EvictIdleHikariMetersTest {

    private static final String POOL = "wt40b-evict";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class,
                    LoomPoolMetricsAutoConfiguration.class, DataSourceAutoConfiguration.class,
                    MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                    CompositeMeterRegistryAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + LoomPoolAutoConfigurationTest.h2(),
                    "loompool.pool-name=" + POOL, "loompool.min-size=3", "loompool.max-size=3",
                    "loompool.metrics.hikari-compatible=true");

    private static long count(MeterRegistry r, String timer) {
        return r.get(timer).tag("pool", POOL).timer().count();
    }

    private static double timeouts(MeterRegistry r) {
        return r.get("hikaricp.connections.timeout").tag("pool", POOL).counter().count();
    }

    private static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(10);
        }
    }

    private static void warm(LoomPoolDataSource ds) throws Exception {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("SELECT 1");
        }
        eventually("three idle", () -> ds.getPool().stats().idle() == 3);
    }

    @Disabled("Known limit (README, metrics): DELETE /actuator/loompool/{name}/idle borrows each idle connection to close it,"
            + " one sample each in hikaricp.connections.acquire and .usage; HikariCP's softEvictConnections records none")
    @Test
    void evictingTheIdleConnectionsRecordsNoBorrow() {
        runner.run(context -> {
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            MeterRegistry r = context.getBean(MeterRegistry.class);
            warm(ds);
            long acquires = count(r, "hikaricp.connections.acquire");
            long usages = count(r, "hikaricp.connections.usage");
            long waits = r.get("db.client.connection.wait_time").timer().count();
            assertThat(ds.evictIdle()).isEqualTo(3);
            eventually("refilled", () -> ds.getPool().stats().idle() == 3);
            assertThat(count(r, "hikaricp.connections.acquire")).as("acquire samples").isEqualTo(acquires);
            assertThat(count(r, "hikaricp.connections.usage")).as("usage samples").isEqualTo(usages);
            assertThat(r.get("db.client.connection.wait_time").timer().count()).isEqualTo(waits);
            assertThat(timeouts(r)).isZero();
        });
    }

    /** During an outage an operator flushes the idle connections: that is no failed borrow of the application. */
    @Test
    void evictingWhileTheBreakerIsOpenCountsNoTimeout() {
        runner.run(context -> {
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            MeterRegistry r = context.getBean(MeterRegistry.class);
            warm(ds);
            ds.getPool().deactivate();
            double rejected = r.get("loompool.circuitbreaker.rejected").counter().count();
            ds.evictIdle();
            assertThat(timeouts(r)).as("hikaricp.connections.timeout").isZero();
            assertThat(r.get("loompool.circuitbreaker.rejected").counter().count()).isEqualTo(rejected);
            ds.getPool().activate();
        });
    }
}
