package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.TestDatabase;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The same workload through real HikariCP 7.1 (its MicrometerMetricsTracker on a SimpleMeterRegistry)
 * and through loompool with {@code loompool.metrics.hikari-compatible=true}, both on a real
 * PostgreSQL: every {@code hikaricp.*} meter has the same id (name, tags, type, base unit,
 * description) and, for transactions (one borrow per getConnection in either pool), the same counts
 * and gauge values at each step.
 */
class HikariMetersParityTest {

    private static final String POOL = "parity";

    /** Each hikaricp meter's id as a registry exports it: type, base unit, tags, description. */
    private static Map<String, String> ids(MeterRegistry registry) {
        Map<String, String> ids = new TreeMap<>();
        for (Meter m : registry.getMeters()) {
            Meter.Id id = m.getId();
            if (id.getName().startsWith("hikaricp")) {
                ids.put(id.getName(), id.getType() + " unit=" + id.getBaseUnit() + " tags=" + id.getTags()
                        + " description=" + id.getDescription());
            }
        }
        return ids;
    }

    /** The values a dashboard reads, at one moment. */
    private static Map<String, Double> values(MeterRegistry registry) throws InterruptedException {
        // HikariCP's gauges read a PoolStats it reloads at most once a second: read after that second
        Thread.sleep(1_100);
        Map<String, Double> values = new LinkedHashMap<>();
        for (String gauge : new String[] {"hikaricp.connections", "hikaricp.connections.active",
                "hikaricp.connections.idle", "hikaricp.connections.pending", "hikaricp.connections.max",
                "hikaricp.connections.min"}) {
            values.put(gauge, registry.get(gauge).tag("pool", POOL).gauge().value());
        }
        for (String timer : new String[] {"hikaricp.connections.acquire", "hikaricp.connections.usage",
                "hikaricp.connections.creation"}) {
            values.put(timer + ".count", (double) registry.get(timer).tag("pool", POOL).timer().count());
        }
        values.put("hikaricp.connections.timeout.count",
                registry.get("hikaricp.connections.timeout").tag("pool", POOL).counter().count());
        return values;
    }

    private static void transaction(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("SELECT 1");
            }
            c.commit();
        }
    }

    private static Connection holdOne(DataSource ds) throws SQLException {
        Connection c = ds.getConnection();
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.execute("SELECT 1");
        }
        return c;
    }

    private static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(5);
        }
    }

    /** The workload, with the values read at each step; {@code fill} says when the pre-warm is done. */
    private static Map<String, Map<String, Double>> workload(DataSource ds, MeterRegistry registry) throws Exception {
        Map<String, Map<String, Double>> steps = new LinkedHashMap<>();
        eventually("both connections are open and idle",
                () -> registry.get("hikaricp.connections.idle").tag("pool", POOL).gauge().value() == 2);
        steps.put("warm", values(registry));
        for (int i = 0; i < 3; i++) {
            transaction(ds);
        }
        steps.put("after 3 transactions", values(registry));
        try (Connection first = holdOne(ds)) {
            steps.put("one held", values(registry));
            try (Connection second = holdOne(ds)) {
                steps.put("two held", values(registry));
                CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
                    try {
                        transaction(ds);
                        return true;
                    } catch (SQLException timedOut) {
                        return false;
                    }
                });
                eventually("a thread waits", () -> registry.get("hikaricp.connections.pending").tag("pool", POOL)
                        .gauge().value() == 1 || waiter.isDone());
                steps.put("two held, one waiting", values(registry));
                assertThat(waiter.get(30, TimeUnit.SECONDS)).as("the waiter times out").isFalse();
                steps.put("after the timeout", values(registry));
                second.commit();
            }
            first.commit();
        }
        steps.put("all back", values(registry));
        // HikariCP opens its first connection (checkFailFast) before it sets up its metrics tracker, so
        // its creation timer misses that one; loompool's counts every connect. Compare what follows the pre-warm.
        double warmCreations = steps.get("warm").get("hikaricp.connections.creation.count");
        steps.values().forEach(values -> values.merge("hikaricp.connections.creation.count", -warmCreations, Double::sum));
        return steps;
    }

    @Test
    void everyHikariMeterHasHikariCpsIdAndValuesForTheSameWorkloadOnPostgres() throws Exception {
        String url = TestDatabase.POSTGRES.url();
        SimpleMeterRegistry hikariRegistry = new SimpleMeterRegistry();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setPoolName(POOL);
        config.setMaximumPoolSize(2);
        config.setMinimumIdle(2);
        config.setConnectionTimeout(4_000);
        config.setMetricRegistry(hikariRegistry);
        Map<String, String> hikariIds;
        Map<String, Map<String, Double>> hikariSteps;
        try (HikariDataSource hikari = new HikariDataSource(config)) {
            hikariSteps = workload(hikari, hikariRegistry);
            hikariIds = ids(hikariRegistry);
        }
        assertThat(ids(hikariRegistry)).as("HikariCP removes its meters when the pool closes").isEmpty();

        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                        LoomPoolAutoConfiguration.class, LoomPoolMetricsAutoConfiguration.class,
                        DataSourceAutoConfiguration.class, MetricsAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + url, "loompool.pool-name=" + POOL,
                        "loompool.min-size=2", "loompool.max-size=2", "loompool.acquire-timeout=4s",
                        "loompool.metrics.hikari-compatible=true")
                .run(context -> {
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    Map<String, Map<String, Double>> steps = workload(context.getBean(LoomPoolDataSource.class),
                            registry);
                    assertThat(ids(registry)).as("the meters' ids").isEqualTo(hikariIds);
                    steps.forEach((step, values) -> assertThat(values).as(step).isEqualTo(hikariSteps.get(step)));
                });
    }

    /** Each attempt's outcome: the kind of exception, for the report. */
    private static double attemptsAgainstADeadDatabase(DataSource ds, MeterRegistry registry) {
        for (int i = 0; i < 3; i++) {
            try {
                transaction(ds);
                throw new AssertionError("nothing listens on that port");
            } catch (SQLException expected) {
                // HikariCP: SQLTransientConnectionException after connectionTimeout, the connect error its cause
            }
        }
        return registry.get("hikaricp.connections.timeout").tag("pool", POOL).counter().count();
    }

    /**
     * The common HikariCP alert on {@code rate(hikaricp_connections_timeout_total[5m]) > 0} fires when
     * the database goes away: every getConnection waits connectionTimeout and counts a timeout.
     */
    @Test
    void aDatabaseThatIsDownCountsInTheTimeoutCounterAsInHikariCp() {
        String dead = "jdbc:postgresql://127.0.0.1:1/test?user=postgres&connectTimeout=1";
        SimpleMeterRegistry hikariRegistry = new SimpleMeterRegistry();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(dead);
        config.setPoolName(POOL);
        config.setMaximumPoolSize(2);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(300);
        config.setInitializationFailTimeout(-1);
        config.setMetricRegistry(hikariRegistry);
        double hikariTimeouts;
        try (HikariDataSource hikari = new HikariDataSource(config)) {
            hikariTimeouts = attemptsAgainstADeadDatabase(hikari, hikariRegistry);
        }
        assertThat(hikariTimeouts).isEqualTo(3);
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                        LoomPoolAutoConfiguration.class, LoomPoolMetricsAutoConfiguration.class,
                        DataSourceAutoConfiguration.class, MetricsAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + dead, "loompool.pool-name=" + POOL,
                        "loompool.min-size=0", "loompool.max-size=2", "loompool.acquire-timeout=300ms",
                        "loompool.metrics.hikari-compatible=true")
                .run(context -> assertThat(attemptsAgainstADeadDatabase(context.getBean(LoomPoolDataSource.class),
                        context.getBean(MeterRegistry.class))).isEqualTo(hikariTimeouts));
    }
}
