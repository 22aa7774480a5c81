package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.jdbc.LoomPoolDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.metrics.DataSourcePoolMetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/** Micrometer meters on Boot's SimpleMeterRegistry, the health contributor and the endpoint. */
class ObservabilityTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class,
                    LoomPoolMetricsAutoConfiguration.class, LoomPoolHealthAutoConfiguration.class,
                    LoomPoolEndpointAutoConfiguration.class, DataSourceAutoConfiguration.class,
                    JdbcTemplateAutoConfiguration.class, MetricsAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                    DataSourcePoolMetricsAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + LoomPoolAutoConfigurationTest.h2(),
                    "loompool.pool-name=orders", "loompool.max-size=4",
                    "management.endpoints.web.exposure.include=loompool");

    private static Search meter(MeterRegistry registry, String name) {
        return registry.find(name).tag("db.client.connection.pool.name", "orders");
    }

    /** One list of meters: what a pool registers is exactly LoomPoolMeter, and the README lists each. */
    @Test
    void everyMeterAPoolRegistersIsListedInTheMeterEnumAndTheReadme() throws Exception {
        String readme = Files.readString(Path.of("..", "docs", "operations.md"));
        runner.run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            Set<String> registered = registry.getMeters().stream()
                    .filter(m -> "orders".equals(m.getId().getTag(LoomPoolMeter.POOL_NAME)))
                    .map(m -> m.getId().getName()).collect(Collectors.toCollection(TreeSet::new));
            Set<String> listed = Arrays.stream(LoomPoolMeter.values()).map(LoomPoolMeter::meterName)
                    .collect(Collectors.toCollection(TreeSet::new));
            assertThat(registered).isEqualTo(listed);
        });
        for (LoomPoolMeter meter : LoomPoolMeter.values()) {
            String name = meter.meterName();
            String shortTimer = name.startsWith("db.client.connection.") && name.endsWith("_time")
                    ? "`." + name.substring("db.client.connection.".length()) + "`" : null;
            assertThat(readme.contains("`" + name + "`") || (shortTimer != null && readme.contains(shortTimer)))
                    .as("README's metric table lists %s", name).isTrue();
        }
    }

    @Test
    void theMetersFollowTheOpenTelemetryNamesAndLoompoolsOwn() {
        runner.run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            for (int i = 0; i < 3; i++) {
                assertThat(jdbc.queryForObject("SELECT 1", Integer.class)).isEqualTo(1);
            }
            assertThat(meter(registry, "db.client.connection.count").tag("db.client.connection.state", "idle").gauge().value()).isEqualTo(2);
            assertThat(meter(registry, "db.client.connection.count").tag("db.client.connection.state", "used").gauge().value()).isZero();
            assertThat(meter(registry, "db.client.connection.max").gauge().value()).isEqualTo(4);
            assertThat(meter(registry, "db.client.connection.idle.min").gauge().value()).isEqualTo(2);
            assertThat(meter(registry, "db.client.connection.pending_requests").gauge().value()).isZero();
            assertThat(meter(registry, "db.client.connection.wait_time").timer().count()).isEqualTo(3);
            assertThat(meter(registry, "db.client.connection.use_time").timer().count()).isEqualTo(3);
            assertThat(meter(registry, "db.client.connection.create_time").timer().count())
                    .as("the two pre-warmed connections, opened before the registry existed").isEqualTo(2);
            assertThat(meter(registry, "db.client.connection.timeouts").counter().count()).isZero();
            assertThat(meter(registry, "loompool.handles.open").gauge().value()).isZero();
            assertThat(meter(registry, "loompool.connections.pinned").tag("reason", "transaction").gauge().value()).isZero();
            assertThat(meter(registry, "loompool.connections.pinned.duration").tag("reason", "statement")
                    .functionTimer().count()).as("each query's binding, as its statement held it").isGreaterThanOrEqualTo(3);
            assertThat(meter(registry, "loompool.connections.pinned.duration").tag("reason", "session_state")
                    .functionTimer().count()).isZero();
            assertThat(meter(registry, "loompool.connections.pinned.duration.max").tag("reason", "statement")
                    .timeGauge().value()).isGreaterThanOrEqualTo(0);
            assertThat(meter(registry, "loompool.connections.reclaimed").functionCounter().count()).isZero();
            assertThat(meter(registry, "loompool.circuitbreaker.state").tag("state", "active").gauge().value()).isEqualTo(1);
            assertThat(meter(registry, "loompool.circuitbreaker.state").tag("state", "inactive").gauge().value()).isZero();

            ds.getPool().deactivate();
            assertThatThrownBy(() -> jdbc.queryForObject("SELECT 1", Integer.class)).isInstanceOf(DataAccessException.class);
            ds.getPool().activate();
            assertThat(meter(registry, "loompool.circuitbreaker.rejected").counter().count()).isEqualTo(1);
            assertThat(meter(registry, "loompool.circuitbreaker.transitions").tag("from", "active").tag("to", "inactive")
                    .counter().count()).isEqualTo(1);
            assertThat(registry.find("jdbc.connections.max").tag("name", "orders").gauge().value())
                    .as("Boot's own jdbc.connections.*, through the metadata provider, named after the pool").isEqualTo(4);
            assertThat(registry.find("jdbc.connections.max").tag("name", "dataSource").meters())
                    .as("not after the bean").isEmpty();

            ds.close();
            context.getBean(LoomPoolMeters.class).destroy();
            assertThat(registry.find("db.client.connection.count").meters()).as("removed with the pool").isEmpty();
            assertThat(registry.find("loompool.circuitbreaker.transitions").meters()).isEmpty();
        });
    }

    /** Each replica's pool has its meters, tagged with its own name; handles stay the data source's. */
    @Test
    void replicaPoolsHaveTheirOwnMeters() {
        runner.withPropertyValues("loompool.replicas=" + LoomPoolAutoConfigurationTest.h2(), "loompool.replica-max-size=3")
                .run(context -> {
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
                    try (var c = ds.getConnection()) {
                        c.setReadOnly(true);
                        try (var s = c.createStatement()) {
                            s.execute("SELECT 1");
                        }
                    }
                    Search replica = registry.find("db.client.connection.max")
                            .tag("db.client.connection.pool.name", "orders-replica-1");
                    assertThat(replica.gauge().value()).isEqualTo(3);
                    assertThat(meter(registry, "db.client.connection.max").gauge().value()).isEqualTo(4);
                    assertThat(registry.find("db.client.connection.wait_time")
                            .tag("db.client.connection.pool.name", "orders-replica-1").timer().count())
                            .as("the read-only statement bound a replica connection").isEqualTo(1);
                    assertThat(meter(registry, "db.client.connection.wait_time").timer().count())
                            .as("and not the primary's").isZero();
                    assertThat(registry.find("loompool.circuitbreaker.state").tag("state", "active")
                            .tag("db.client.connection.pool.name", "orders-replica-1").gauge().value()).isEqualTo(1);
                    assertThat(registry.find("loompool.handles.open")
                            .tag("db.client.connection.pool.name", "orders-replica-1").meters()).isEmpty();
                    Map<String, Object> shown = context.getBean(LoomPoolEndpoint.class).pool("orders");
                    assertThat(shown.get("replicas")).asString().contains("name=orders-replica-1")
                            .contains("circuitBreaker=ACTIVE");
                    assertThat(shown.get("settings")).asString().contains("serverPooler=NONE");
                });
    }

    @Test
    void bootsJdbcConnectionsGaugesAreNeverRenamedOntoAnotherDataSourcesName() {
        // A loompool bean "dataSource" named "orders" beside a Hikari bean "orders": both keep Boot's names.
        runner.withClassLoader(new org.springframework.boot.test.context.FilteredClassLoader("org.crac"))
                .withBean("dataSource", LoomPoolDataSource.class, () -> {
                    LoomPoolDataSource ds = new LoomPoolDataSource();
                    ds.setJdbcUrl(LoomPoolAutoConfigurationTest.h2());
                    ds.setPoolName("orders");
                    ds.setMaxSize(7);
                    return ds;
                }, d -> d.setPrimary(true))
                .withBean("orders", com.zaxxer.hikari.HikariDataSource.class, () -> {
                    com.zaxxer.hikari.HikariDataSource ds = new com.zaxxer.hikari.HikariDataSource();
                    ds.setJdbcUrl(LoomPoolAutoConfigurationTest.h2());
                    ds.setMaximumPoolSize(3);
                    return ds;
                })
                .run(context -> {
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.find("jdbc.connections.max").tag("name", "orders").gauge().value()).isEqualTo(3);
                    assertThat(registry.find("jdbc.connections.max").tag("name", "dataSource").gauge().value()).isEqualTo(7);
                });
    }

    @Test
    void healthIsDownWhileTheCircuitIsOpenAndShowsTheCounts() {
        runner.run(context -> {
            LoomPoolHealthIndicator indicator = context.getBean(LoomPoolHealthIndicator.class);
            Health up = indicator.health();
            assertThat(up.getStatus()).isEqualTo(Status.UP);
            assertThat(up.getDetails()).containsEntry("pool", "orders").containsEntry("circuitBreaker", "ACTIVE")
                    .containsEntry("idle", 2).containsEntry("maxSize", 4);
            context.getBean(LoomPoolDataSource.class).getPool().deactivate();
            Health down = indicator.health();
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(down.getDetails()).containsEntry("circuitBreaker", "INACTIVE");
        });
    }

    @Test
    void theEndpointShowsWhyAHandleIsPinnedWithItsStatementMasked() {
        runner.withPropertyValues("loompool.leak-detection-threshold=1h").run(context -> {
            LoomPoolEndpoint endpoint = context.getBean(LoomPoolEndpoint.class);
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            try (java.sql.Connection c = ds.getConnection(); java.sql.Statement st = c.createStatement()) {
                st.execute("SET @token = 'secret-token-123'");
                Object handles = endpoint.pool("orders").get("boundHandles");
                assertThat(handles).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST).singleElement()
                        .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                        .containsEntry("longestPin", dev.loompool.jdbc.PinReason.SESSION_STATE)
                        .containsEntry("pinStatement", "SET @token = ?")
                        .containsKeys("ownerThread", "boundMillis", "pins", "longestPinMillis")
                        .hasEntrySatisfying("bindSite", site -> assertThat(site.toString())
                                .startsWith(ObservabilityTest.class.getName() + "."));
                assertThat(handles.toString()).doesNotContain("secret-token-123");
            }
        });
    }

    @Test
    void theEndpointListsReadsSetsAndEvictsButNeverShowsThePassword() {
        runner.withPropertyValues("spring.datasource.username=sa", "spring.datasource.password=hunter2").run(context -> {
            LoomPoolEndpoint endpoint = context.getBean(LoomPoolEndpoint.class);
            assertThat(endpoint.pools()).extractingByKey("pools").asInstanceOf(
                    org.assertj.core.api.InstanceOfAssertFactories.MAP).containsKey("orders");
            Map<String, Object> pool = endpoint.pool("orders");
            assertThat(pool).containsEntry("circuitBreaker", "ACTIVE").containsEntry("idle", 2).containsKey("boundHandles");
            assertThat(pool.toString()).doesNotContain("hunter2");
            assertThat(endpoint.pool("nope")).isNull();
            assertThat(endpoint.setState("orders", "inactive")).containsEntry("circuitBreaker", "INACTIVE");
            assertThatThrownBy(() -> endpoint.setState("orders", "HALF_OPEN")).as("a 400 for the caller, not a 500")
                    .isInstanceOf(org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException.class)
                    .hasMessageContaining("ACTIVE, INACTIVE, RECOVERING");
            endpoint.setState("orders", "ACTIVE");
            assertThat(endpoint.evict("orders", "idle")).containsEntry("evicted", 2);
            assertThat(endpoint.evict("orders", "everything")).isNull();
        });
    }

    @Test
    void writeOperationsAreOffUntilAccessIsUnrestricted() throws NoSuchMethodException {
        assertThat(LoomPoolEndpoint.class.getAnnotation(Endpoint.class).defaultAccess()).isEqualTo(Access.READ_ONLY);
        // READ_ONLY only guards what is declared as a write: every change must be.
        assertThat(LoomPoolEndpoint.class.getMethod("setState", String.class, String.class)
                .isAnnotationPresent(org.springframework.boot.actuate.endpoint.annotation.WriteOperation.class)).isTrue();
        assertThat(LoomPoolEndpoint.class.getMethod("changeLimits", String.class, String.class, Integer.class, Integer.class,
                String.class, String.class).isAnnotationPresent(org.springframework.boot.actuate.endpoint.annotation.WriteOperation.class))
                .isTrue();
        assertThat(LoomPoolEndpoint.class.getMethod("evict", String.class, String.class)
                .isAnnotationPresent(org.springframework.boot.actuate.endpoint.annotation.DeleteOperation.class)).isTrue();
    }
}
