package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.jdbc.LoomPoolDataSource;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code loompool.metrics.hikari-compatible}: HikariCP's own meters, with its names, tag, descriptions
 * and meaning (HikariCP 7.1's MicrometerMetricsTracker and HikariPool), beside the OpenTelemetry ones.
 */
class HikariCompatibleMetersTest {

    private static final String SWITCH = "loompool.metrics.hikari-compatible=true";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class,
                    LoomPoolMetricsAutoConfiguration.class, DataSourceAutoConfiguration.class,
                    MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                    CompositeMeterRegistryAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + LoomPoolAutoConfigurationTest.h2(),
                    "loompool.pool-name=orders", "loompool.min-size=2", "loompool.max-size=2");

    /** HikariCP's meters, each with the description HikariCP registers it with. */
    private static final Map<String, String> HIKARI_METERS = Map.of(
            "hikaricp.connections", "Total connections",
            "hikaricp.connections.active", "Active connections",
            "hikaricp.connections.idle", "Idle connections",
            "hikaricp.connections.pending", "Pending threads",
            "hikaricp.connections.max", "Max connections",
            "hikaricp.connections.min", "Min connections",
            "hikaricp.connections.timeout", "Connection timeout total count",
            "hikaricp.connections.acquire", "Connection acquire time",
            "hikaricp.connections.usage", "Connection usage time",
            "hikaricp.connections.creation", "Connection creation time");

    private static Search hikari(MeterRegistry registry, String name, String pool) {
        return registry.find(name).tag("pool", pool);
    }

    private static Search hikari(MeterRegistry registry, String name) {
        return hikari(registry, name, "orders");
    }

    private static double gauge(MeterRegistry registry, String name) {
        return hikari(registry, name).gauge().value();
    }

    /** One physical borrow: the statement binds a connection, and its end gives it back. */
    private static void borrowOnce(LoomPoolDataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("SELECT 1");
        }
    }

    /** A handle holding a physical connection until it is closed: its open transaction pins it. */
    private static Connection holdOne(LoomPoolDataSource ds) throws SQLException {
        Connection c = ds.getConnection();
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.execute("SELECT 1");
        }
        return c;
    }

    @Test
    void withTheSwitchOnEveryHikariMeterIsThereTaggedWithThePoolAndDescribedAsHikariDoes() {
        runner.withPropertyValues(SWITCH).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            HIKARI_METERS.forEach((name, description) -> {
                List<Meter> meters = List.copyOf(registry.find(name).meters());
                assertThat(meters).as(name).hasSize(1);
                Meter.Id id = meters.get(0).getId();
                assertThat(id.getTags()).as(name).hasSize(1);
                assertThat(id.getTag("pool")).as(name).isEqualTo("orders");
                assertThat(id.getDescription()).as(name).isEqualTo(description);
                if (id.getType() == Meter.Type.GAUGE || id.getType() == Meter.Type.COUNTER) {
                    assertThat(id.getBaseUnit()).as("%s has no base unit, as HikariCP's: Prometheus names stay %s",
                            name, name.replace('.', '_')).isNull();
                }
            });
            assertThat(hikari(registry, "hikaricp.connections.acquire").timer()).isNotNull();
            assertThat(hikari(registry, "hikaricp.connections.usage").timer()).isNotNull();
            assertThat(hikari(registry, "hikaricp.connections.creation").timer()).isNotNull();
            assertThat(hikari(registry, "hikaricp.connections.timeout").counter()).isNotNull();
            assertThat(registry.find("db.client.connection.wait_time").tag(LoomPoolMeter.POOL_NAME, "orders").timer())
                    .as("beside the OpenTelemetry meters, not instead").isNotNull();
        });
    }

    /** The README maps each HikariCP meter to its OpenTelemetry one, in a row of its own. */
    @Test
    void theReadmeMapsEveryHikariMeterToItsOpenTelemetryOne() throws Exception {
        List<String> rows = Files.readAllLines(Path.of("..", "docs", "operations.md"));
        assertThat(Arrays.stream(HikariMeter.values()).map(HikariMeter::meterName)).containsExactlyInAnyOrderElementsOf(
                HIKARI_METERS.keySet());
        for (String name : HIKARI_METERS.keySet()) {
            assertThat(rows).as("README row for %s", name)
                    .anyMatch(row -> row.startsWith("| `" + name + "` | `db.client.connection."));
        }
    }

    @Test
    void withTheSwitchOffThereIsNoHikariMeter() {
        runner.run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            borrowOnce(context.getBean(LoomPoolDataSource.class));
            assertThat(registry.getMeters()).extracting(m -> m.getId().getName())
                    .contains("db.client.connection.wait_time").noneMatch(name -> name.startsWith("hikaricp"));
        });
        runner.withPropertyValues("loompool.metrics.hikari-compatible=false").run(context ->
                assertThat(context.getBean(MeterRegistry.class).getMeters()).extracting(m -> m.getId().getName())
                        .noneMatch(name -> name.startsWith("hikaricp")));
    }

    @Test
    void aValueThatIsNoBooleanFailsTheStartupNamingTheKey() {
        runner.withPropertyValues("loompool.metrics.hikari-compatible=sometimes").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("loompool.metrics.hikari-compatible")
                    .rootCause().hasMessageContaining("Invalid boolean value 'sometimes'");
        });
    }

    @Test
    void acquireCountsEachPhysicalBorrowUsageEachReturnAndCreationEachConnect() {
        runner.withPropertyValues(SWITCH).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            for (int i = 0; i < 3; i++) {
                borrowOnce(ds);
            }
            try (Connection c = ds.getConnection()) {
                assertThat(c.isClosed()).isFalse(); // a handle that never ran a statement borrowed nothing
            }
            assertThat(hikari(registry, "hikaricp.connections.acquire").timer().count()).isEqualTo(3);
            assertThat(hikari(registry, "hikaricp.connections.usage").timer().count()).isEqualTo(3);
            assertThat(hikari(registry, "hikaricp.connections.creation").timer().count())
                    .as("the two pre-warmed connections, opened before the registry bound the meters").isEqualTo(2);
            assertThat(hikari(registry, "hikaricp.connections.acquire").timer().count())
                    .as("the same events as the OpenTelemetry timers")
                    .isEqualTo(registry.find("db.client.connection.wait_time").tag(LoomPoolMeter.POOL_NAME, "orders")
                            .timer().count());
            assertThat(hikari(registry, "hikaricp.connections.timeout").counter().count()).isZero();
        });
    }

    @Test
    void theGaugesFollowThePoolsCountsWhileConnectionsAreHeldAndAThreadWaits() {
        runner.withPropertyValues(SWITCH).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            assertThat(gauge(registry, "hikaricp.connections")).isEqualTo(2);
            assertThat(gauge(registry, "hikaricp.connections.idle")).isEqualTo(2);
            assertThat(gauge(registry, "hikaricp.connections.active")).isZero();
            assertThat(gauge(registry, "hikaricp.connections.pending")).isZero();
            assertThat(gauge(registry, "hikaricp.connections.max")).isEqualTo(2);
            assertThat(gauge(registry, "hikaricp.connections.min")).isEqualTo(2);
            try (Connection first = holdOne(ds)) {
                assertThat(gauge(registry, "hikaricp.connections.active")).isEqualTo(1);
                assertThat(gauge(registry, "hikaricp.connections.idle")).isEqualTo(1);
                CompletableFuture<Void> waiter;
                try (Connection second = holdOne(ds)) {
                    assertThat(gauge(registry, "hikaricp.connections.active")).isEqualTo(2);
                    waiter = CompletableFuture.runAsync(() -> {
                        try {
                            borrowOnce(ds);
                        } catch (SQLException e) {
                            throw new IllegalStateException(e);
                        }
                    });
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (ds.getPool().stats().pending() == 0 && System.nanoTime() < deadline) {
                        Thread.sleep(5);
                    }
                    assertThat(gauge(registry, "hikaricp.connections.pending")).isEqualTo(1);
                    assertThat(gauge(registry, "hikaricp.connections")).isEqualTo(2);
                }
                waiter.get(10, TimeUnit.SECONDS);
                assertThat(gauge(registry, "hikaricp.connections.pending")).isZero();
                assertThat(gauge(registry, "hikaricp.connections.active")).isEqualTo(1);
            }
            assertThat(gauge(registry, "hikaricp.connections.active")).isZero();
            assertThat(gauge(registry, "hikaricp.connections.idle")).isEqualTo(2);
            assertThat(hikari(registry, "hikaricp.connections.acquire").timer().count()).isEqualTo(3);
            assertThat(hikari(registry, "hikaricp.connections.usage").timer().count()).isEqualTo(3);
        });
    }

    /** HikariCP counts the timeout, and records the timed-out wait in {@code .acquire} too (HikariPool.getConnection). */
    @Test
    void anAcquireTimeoutCountsInTimeoutAndItsWaitInAcquire() {
        runner.withPropertyValues(SWITCH, "loompool.acquire-timeout=200ms").run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            try (Connection first = holdOne(ds); Connection second = holdOne(ds)) {
                assertThatThrownBy(() -> borrowOnce(ds)).isInstanceOf(SQLException.class);
            }
            assertThat(hikari(registry, "hikaricp.connections.timeout").counter().count()).isEqualTo(1);
            assertThat(hikari(registry, "hikaricp.connections.acquire").timer().count())
                    .as("two borrows and the wait that timed out").isEqualTo(3);
            assertThat(hikari(registry, "hikaricp.connections.acquire").timer().max(TimeUnit.MILLISECONDS))
                    .isGreaterThanOrEqualTo(200);
            assertThat(hikari(registry, "hikaricp.connections.usage").timer().count()).isEqualTo(2);
        });
    }

    @Test
    void everyPoolHasThemUnderItsOwnNameAndTheyGoWithThePool() {
        runner.withClassLoader(new FilteredClassLoader("org.crac")).withPropertyValues(SWITCH)
                .withUserConfiguration(EveryPoolIsWiredTest.TwoPoolsOneFromDataSourceBuilder.class).run(context -> {
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    Map<String, LoomPoolDataSource> pools = PoolWiring.pools(context);
                    assertThat(pools).containsOnlyKeys("orders", "reporting");
                    for (LoomPoolDataSource ds : pools.values()) {
                        borrowOnce(ds);
                        String name = ds.getPoolName();
                        assertThat(hikari(registry, "hikaricp.connections.acquire", name).timer().count()).as(name)
                                .isEqualTo(1);
                        assertThat(hikari(registry, "hikaricp.connections.max", name).gauge().value()).as(name)
                                .isEqualTo(ds.getMaxSize());
                    }
                    pools.values().forEach(LoomPoolDataSource::close);
                    context.getBean(LoomPoolMeters.class).destroy();
                    assertThat(registry.find("hikaricp.connections").meters()).as("removed with the pools").isEmpty();
                    assertThat(registry.find("hikaricp.connections.acquire").meters()).isEmpty();
                });
    }

    @Test
    void eachReplicaPoolHasThemUnderItsOwnName() {
        runner.withPropertyValues(SWITCH, "loompool.replicas=" + LoomPoolAutoConfigurationTest.h2(),
                "loompool.replica-max-size=3").run(context -> {
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
                    try (Connection c = ds.getConnection()) {
                        c.setReadOnly(true);
                        try (Statement s = c.createStatement()) {
                            s.execute("SELECT 1");
                        }
                    }
                    assertThat(hikari(registry, "hikaricp.connections.max", "orders-replica-1").gauge().value())
                            .isEqualTo(3);
                    assertThat(hikari(registry, "hikaricp.connections.acquire", "orders-replica-1").timer().count())
                            .isEqualTo(1);
                    assertThat(hikari(registry, "hikaricp.connections.acquire").timer().count()).isZero();
                });
    }
}
