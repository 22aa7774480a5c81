package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Failover when the network freezes under idle connections (DESIGN.md §7, §3 "Every wait has a
 * deadline"): a proxy in front of the real server stops forwarding. The first caller pays for one
 * bounded validation and its own connect, not one validation timeout per idle connection (three
 * here: 7 s before issue 11's fix, with acquireTimeout 1 s and validationTimeout 2 s).
 */
class FrozenNetworkTest {

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private long firstCallerMillisAfterTheFreeze(TestDatabase db, String path) throws Exception {
        Matcher hostPort = Pattern.compile("//[^/:]+:(\\d+)/").matcher(db.url());
        assertThat(hostPort.find()).as("host:port in %s", JdbcUrls.redact(db.url())).isTrue();
        FreezingProxy proxy = new FreezingProxy(Integer.parseInt(hostPort.group(1)));
        toClose.add(proxy);
        LoomPoolDataSource ds = new LoomPoolDataSource();
        toClose.add(ds);
        ds.setJdbcUrl(db.url().replaceFirst("//[^/]+/", "//127.0.0.1:" + proxy.port() + "/"));
        ds.setPoolName("frozen-" + path);
        ds.setMaxSize(3);
        ds.setAcquireTimeout(Duration.ofSeconds(1));
        ds.setValidationTimeout(Duration.ofSeconds(2));
        List<Connection> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Connection c = ds.getConnection();
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.execute("SELECT 1");
            }
            held.add(c);
        }
        for (Connection c : held) {
            c.commit();
            c.close();
        }
        assertThat(ds.getPool().stats().idle()).isEqualTo(3);
        Thread.sleep(700); // idle longer than the 500 ms the pool trusts without a round trip
        proxy.freeze();
        long start = System.nanoTime();
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("SELECT 1");
            throw new AssertionError("a frozen network answered");
        } catch (SQLException expected) {
            assertThat(expected.getMessage()).contains(ds.getPoolName());
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    @Test
    void postgresTheFirstCallerPaysOneValidationNotOnePerIdleConnection() throws Exception {
        assertThat(firstCallerMillisAfterTheFreeze(TestDatabase.POSTGRES, "postgresql"))
                .as("a validation bounded by acquireTimeout (1 s), then its connect within 1 s").isLessThan(3_000);
    }

    @Test
    void mariaDbTheFirstCallerPaysOneValidationNotOnePerIdleConnection() throws Exception {
        assertThat(firstCallerMillisAfterTheFreeze(TestDatabase.MARIADB, "mariadb"))
                .as("a validation bounded by acquireTimeout (1 s), then its connect within 1 s").isLessThan(3_000);
    }
}
