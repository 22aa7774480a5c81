package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * With the database down, a borrow may start at calls other than a statement: what frameworks do
 * first with a connection (Boot's health check: {@code isValid}; Hibernate and Flyway:
 * {@code getMetaData()}; a transaction manager: {@code setAutoCommit(false)}). Under HikariCP each
 * of these follows a getConnection that failed and counted a timeout. Invariant here: each call that
 * failed for want of a connection (threw, or isValid said false) counts exactly one.
 */
class HikariTimeoutOnEveryConnectionCallTest {

    private static final String POOL = "wt40b-calls";

    interface Call {
        boolean run(Connection c) throws SQLException; // true: it got what it wanted
    }

    @Test
    void eachFailedCallCountsOneTimeout() {
        String dead = "jdbc:postgresql://127.0.0.1:1/test?user=postgres&connectTimeout=1";
        Map<String, Call> calls = new LinkedHashMap<>();
        calls.put("isValid", c -> c.isValid(1));
        calls.put("getMetaData", c -> c.getMetaData().getDatabaseProductVersion() != null);
        calls.put("setAutoCommit(false)", c -> {
            c.setAutoCommit(false);
            return true;
        });
        calls.put("getTransactionIsolation", c -> c.getTransactionIsolation() >= 0);
        calls.put("createStatement().execute", c -> {
            try (var s = c.createStatement()) {
                return s.execute("SELECT 1") || true;
            }
        });
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                        LoomPoolAutoConfiguration.class, LoomPoolMetricsAutoConfiguration.class,
                        DataSourceAutoConfiguration.class, MetricsAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + dead, "loompool.pool-name=" + POOL,
                        "loompool.min-size=0", "loompool.max-size=2", "loompool.acquire-timeout=300ms",
                        "loompool.initialization-fail-timeout=-1ms", "loompool.metrics.hikari-compatible=true")
                .run(context -> {
                    LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
                    MeterRegistry r = context.getBean(MeterRegistry.class);
                    Map<String, String> miscounted = new LinkedHashMap<>();
                    for (int round = 0; round < 3; round++) { // the breaker opens meanwhile: rejections too
                        for (Map.Entry<String, Call> call : calls.entrySet()) {
                            double before = r.get("hikaricp.connections.timeout").tag("pool", POOL).counter().count();
                            boolean failed;
                            try (Connection c = ds.getConnection()) {
                                failed = !call.getValue().run(c);
                            } catch (SQLException e) {
                                failed = true;
                            }
                            double counted = r.get("hikaricp.connections.timeout").tag("pool", POOL).counter().count() - before;
                            if (!failed || counted != 1) {
                                miscounted.put(call.getKey() + " round " + round, "failed=" + failed + " counted=" + counted);
                            }
                        }
                    }
                    assertThat(miscounted).as("calls that did not fail once and count once").isEmpty();
                });
    }
}
