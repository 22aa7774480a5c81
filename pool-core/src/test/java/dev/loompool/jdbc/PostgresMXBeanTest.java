package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.SQLTransientConnectionException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The pool's MXBean (issue 30) over a real PostgreSQL: what jconsole shows while a transaction runs. */
class PostgresMXBeanTest {

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final LoomPoolDataSource ds = new LoomPoolDataSource();

    @AfterEach
    void close() {
        ds.close();
    }

    @Test
    void aTransactionShowsAsOneActiveConnectionPinnedByItAndTheBreakerCanBeHeldAndResumed() throws Exception {
        ds.setJdbcUrl(TestDatabase.POSTGRES.url());
        ds.setPoolName("jmx-pg");
        ds.setMinSize(0);
        ds.setMaxSize(2);
        ds.setRegisterMbeans(true);
        ds.start();
        ObjectName name = LoomPoolMXBeanTest.nameOf("jmx-pg");
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            assertThat(PostgresIntegrationTest.single(c, "SELECT txid_current()")).isPositive();
            assertThat(server.getAttribute(name, "ActiveConnections")).isEqualTo(1);
            assertThat(server.getAttribute(name, "OpenHandles")).isEqualTo(1);
            TabularData pins = (TabularData) server.getAttribute(name, "PinnedConnections");
            assertThat(LoomPoolMXBeanTest.pinned(pins, PinReason.TRANSACTION)).isEqualTo(1);
            CompositeData[] handles = (CompositeData[]) server.getAttribute(name, "BoundHandles");
            assertThat(handles).hasSize(1);
            assertThat((String[]) handles[0].get("pins")).contains("TRANSACTION");
            assertThat(handles[0].get("ownerThread")).isEqualTo(Thread.currentThread().getName());
            c.commit();
        }
        assertThat(server.getAttribute(name, "ActiveConnections")).isEqualTo(0);
        assertThat(server.getAttribute(name, "IdleConnections")).isEqualTo(1);

        server.invoke(name, "deactivatePool", null, null);
        try (Connection c = ds.getConnection()) {
            assertThatThrownBy(() -> PostgresIntegrationTest.single(c, "SELECT 1"))
                    .isInstanceOf(SQLTransientConnectionException.class)
                    .hasMessageContaining("jmx-pg");
        }
        server.invoke(name, "activatePool", null, null);
        try (Connection c = ds.getConnection()) {
            assertThat(PostgresIntegrationTest.single(c, "SELECT 1")).isEqualTo(1);
        }
        // 1, or 2 when deactivatePool's prompt check of the idle connection held it while the
        // SELECT 1 above needed one and opened a second: either way every idle one goes
        assertThat((Integer) server.invoke(name, "evictIdleConnections", null, null)).isBetween(1, 2);
        assertThat(server.getAttribute(name, "TotalConnections")).isEqualTo(0);
    }
}
