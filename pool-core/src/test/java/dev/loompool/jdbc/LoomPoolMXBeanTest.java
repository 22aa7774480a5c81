package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.List;
import java.util.Map;
import javax.management.JMException;
import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import org.junit.jupiter.api.Test;

/**
 * The pool's MXBean (issue 30), read and driven through the platform MBean server as jconsole
 * would, on the stub driver.
 */
class LoomPoolMXBeanTest extends StubSupport {

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    static ObjectName nameOf(String poolName) throws JMException {
        return new ObjectName("dev.loompool:type=Pool,name=" + poolName);
    }

    private LoomPoolDataSource registered() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setRegisterMbeans(true);
        ds.start();
        return ds;
    }

    private Object attribute(LoomPoolDataSource ds, String attribute) throws JMException {
        return server.getAttribute(nameOf(ds.getPoolName()), attribute);
    }

    /** PinnedConnections is a TabularData of (key, value) rows, as a Map maps in an MXBean. */
    static int pinned(TabularData table, PinReason reason) {
        return (Integer) table.get(new Object[] {reason.name()}).get("value");
    }

    @Test
    void theMBeanIsNotRegisteredWhenTheSettingIsFalse() throws Exception {
        LoomPoolDataSource ds = dataSource();
        ds.start();
        try (Connection c = ds.getConnection()) {
            BindingTest.query(c, "SELECT 1");
        }
        assertThat(server.isRegistered(nameOf(ds.getPoolName()))).isFalse();
    }

    @Test
    void theCountsFollowAHandleThatBindsForATransaction() throws Exception {
        LoomPoolDataSource ds = registered();
        assertThat(attribute(ds, "PoolName")).isEqualTo(ds.getPoolName());
        assertThat(attribute(ds, "ActiveConnections")).isEqualTo(0);
        assertThat(attribute(ds, "CircuitBreakerState")).isEqualTo("ACTIVE");
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            BindingTest.query(c, "SELECT 1");
            assertThat(attribute(ds, "ActiveConnections")).isEqualTo(1);
            assertThat(attribute(ds, "TotalConnections")).isEqualTo(1);
            assertThat(attribute(ds, "IdleConnections")).isEqualTo(0);
            assertThat(attribute(ds, "ThreadsAwaitingConnection")).isEqualTo(0);
            assertThat(attribute(ds, "OpenHandles")).isEqualTo(1);
            TabularData pins = (TabularData) attribute(ds, "PinnedConnections");
            assertThat(pins.size()).isEqualTo(PinReason.values().length);
            assertThat(pinned(pins, PinReason.TRANSACTION)).isEqualTo(1);
            assertThat(pinned(pins, PinReason.SESSION_STATE)).isEqualTo(0);
            CompositeData[] handles = (CompositeData[]) attribute(ds, "BoundHandles");
            assertThat(handles).hasSize(1);
            assertThat(handles[0].get("ownerThread")).isEqualTo(Thread.currentThread().getName());
            assertThat((String[]) handles[0].get("pins")).contains("TRANSACTION");
            assertThat((Long) handles[0].get("boundMillis")).isNotNegative();
            assertThat(handles[0].get("longestPin")).isEqualTo("TRANSACTION");
            assertThat(handles[0].get("pinStatement")).isEqualTo("setAutoCommit(false)");
            assertThat(handles[0].get("bindSite")).as("no leak detection: no stack taken").isNull();
            c.commit();
            c.setAutoCommit(true);
        }
        assertThat(attribute(ds, "ActiveConnections")).isEqualTo(0);
        assertThat(attribute(ds, "IdleConnections")).isEqualTo(1);
        assertThat((CompositeData[]) attribute(ds, "BoundHandles")).isEmpty();
        assertThat(pinned((TabularData) attribute(ds, "PinnedConnections"), PinReason.TRANSACTION)).isZero();
    }

    @Test
    void evictIdleConnectionsClosesTheIdleOnesAndSaysHowMany() throws Exception {
        LoomPoolDataSource ds = registered();
        try (Connection a = ds.getConnection(); Connection b = ds.getConnection()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            BindingTest.query(a, "SELECT 1");
            BindingTest.query(b, "SELECT 1");
            a.rollback();
            b.rollback();
            a.setAutoCommit(true);
            b.setAutoCommit(true);
        }
        assertThat(attribute(ds, "IdleConnections")).isEqualTo(2);
        Object evicted = server.invoke(nameOf(ds.getPoolName()), "evictIdleConnections", null, null);
        assertThat(evicted).isEqualTo(2);
        assertThat(attribute(ds, "IdleConnections")).isEqualTo(0);
        eventually("the evicted connections are closed", () -> db.open() == 0); // closed off the caller's thread
    }

    @Test
    void aDeactivatedPoolFailsFastUntilItIsActivatedAgain() throws Exception {
        LoomPoolDataSource ds = registered();
        ObjectName name = nameOf(ds.getPoolName());
        server.invoke(name, "deactivatePool", null, null);
        assertThat(attribute(ds, "CircuitBreakerState")).isEqualTo("INACTIVE");
        try (Connection c = ds.getConnection()) {
            assertThatThrownBy(() -> BindingTest.query(c, "SELECT 1"))
                    .isInstanceOf(SQLTransientConnectionException.class)
                    .hasMessageContaining(ds.getPoolName())
                    .hasMessageContaining("by hand");
        }
        assertThat(db.connects()).isZero();
        server.invoke(name, "activatePool", null, null);
        assertThat(attribute(ds, "CircuitBreakerState")).isEqualTo("ACTIVE");
        try (Connection c = ds.getConnection()) {
            BindingTest.query(c, "SELECT 1");
        }
        assertThat(db.connects()).isEqualTo(1);
    }

    @Test
    void closeUnregistersTheMBean() throws Exception {
        LoomPoolDataSource ds = registered();
        ObjectName name = nameOf(ds.getPoolName());
        assertThat(server.isRegistered(name)).isTrue();
        ds.close();
        assertThat(server.isRegistered(name)).isFalse();
    }

    @Test
    void aNameWithACommaOrAColonIsQuotedInTheObjectName() throws Exception {
        LoomPoolDataSource ds = dataSource();
        String poolName = "orders,eu:1 \"a\"=*?";
        ds.setPoolName(poolName);
        ds.setRegisterMbeans(true);
        ds.start();
        ObjectName name = nameOf(ObjectName.quote(poolName));
        assertThat(server.getAttribute(name, "PoolName")).isEqualTo(poolName);
        assertThat(ObjectName.unquote(name.getKeyProperty("name"))).isEqualTo(poolName);
        ds.close();
        assertThat(server.isRegistered(name)).isFalse();
    }

    @Test
    void aSecondPoolOfTheSameNameRunsWithoutAnMBeanAndLeavesTheFirstOnesAlone() throws Exception {
        LoomPoolDataSource first = registered();
        LoomPoolDataSource second = dataSource();
        second.setPoolName(first.getPoolName());
        second.setRegisterMbeans(true);
        second.setMinSize(1);
        second.start(); // cached Spring test contexts share a JVM and a pool name: that is no reason to fail
        assertThat(second.isRunning()).isTrue();
        ObjectName name = nameOf(first.getPoolName());
        try (Connection c = first.getConnection()) {
            c.setAutoCommit(false);
            c.createStatement().execute("SELECT 1");
            assertThat(server.getAttribute(name, "ActiveConnections")).as("the MBean still shows the first pool").isEqualTo(1);
            c.rollback();
        }
        second.close(); // must not take the first one's MBean away
        assertThat(server.isRegistered(name)).isTrue();
        first.close();
        assertThat(server.isRegistered(name)).isFalse();
    }

    @Test
    void aStartThatFailsAfterRegisteringUnregisters() throws Exception {
        LoomPoolDataSource ds = dataSource();
        ds.setRegisterMbeans(true);
        ds.setMinSize(1);
        db.failNextConnect(new SQLException("stub: connection refused", "08001"));
        assertThatThrownBy(ds::start).isInstanceOf(SQLException.class);
        assertThat(server.isRegistered(nameOf(ds.getPoolName()))).isFalse();
        ds.start(); // the name is free again: a retry registers it
        assertThat(server.isRegistered(nameOf(ds.getPoolName()))).isTrue();
    }

    @Test
    void anMXBeanProxyReadsTheTypedViews() throws Exception {
        LoomPoolDataSource ds = registered();
        LoomPoolMXBean proxy = JMX.newMXBeanProxy(server, nameOf(ds.getPoolName()), LoomPoolMXBean.class);
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            BindingTest.query(c, "SELECT 1");
            Map<String, Integer> pins = proxy.getPinnedConnections();
            assertThat(pins).containsEntry("TRANSACTION", 1).containsEntry("STATEMENT", 0);
            List<LoomPoolMXBean.BoundHandle> handles = proxy.getBoundHandles();
            assertThat(handles).hasSize(1);
            assertThat(handles.get(0).ownerThread()).isEqualTo(Thread.currentThread().getName());
            assertThat(handles.get(0).pins()).contains("TRANSACTION");
            assertThat(proxy.getActiveConnections()).isEqualTo(1);
            c.rollback();
        }
        assertThat(proxy.getReclaimedConnections()).isZero();
        assertThat(proxy.evictIdleConnections()).isEqualTo(1);
        proxy.deactivatePool();
        assertThat(ds.getPool().state().name()).isEqualTo("INACTIVE");
        proxy.activatePool();
        assertThat(proxy.getCircuitBreakerState()).isEqualTo("ACTIVE");
    }

    @Test
    void jmxChangesTheRunningPoolsLimitsAndARefusedValueChangesNothing() throws Exception {
        LoomPoolDataSource ds = registered(); // min 0 (StubSupport), max 10
        ObjectName name = nameOf(ds.getPoolName());
        server.setAttribute(name, new javax.management.Attribute("MaxSize", 3));
        server.setAttribute(name, new javax.management.Attribute("MinSize", 2));
        server.setAttribute(name, new javax.management.Attribute("AcquireTimeoutMillis", 250L));
        server.setAttribute(name, new javax.management.Attribute("LeakDetectionThresholdMillis", 5_000L));
        assertThat(ds.getPool().stats().maxSize()).as("the running pool's, not only the bean's").isEqualTo(3);
        assertThat(ds.getPool().stats().minSize()).isEqualTo(2);
        assertThat(attribute(ds, "AcquireTimeoutMillis")).isEqualTo(250L);
        assertThat(attribute(ds, "LeakDetectionThresholdMillis")).isEqualTo(5_000L);
        assertThat(ds.getAcquireTimeout()).isEqualTo(java.time.Duration.ofMillis(250));

        List<Connection> held = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Connection c = ds.getConnection();
                held.add(c);
                c.setAutoCommit(false);
                BindingTest.query(c, "SELECT 1");
            }
            try (Connection fourth = ds.getConnection()) {
                assertThatThrownBy(() -> BindingTest.query(fourth, "SELECT 1")).as("max 3 now, waiting 250 ms")
                        .isInstanceOf(SQLTransientConnectionException.class);
            }
        } finally {
            for (Connection c : held) {
                c.rollback();
                c.close();
            }
        }

        assertThatThrownBy(() -> server.setAttribute(name, new javax.management.Attribute("MinSize", 4)))
                .as("above maxSize: refused as configuration is").hasRootCauseInstanceOf(IllegalArgumentException.class)
                .rootCause().hasMessageContaining("minSize");
        assertThatThrownBy(() -> server.setAttribute(name, new javax.management.Attribute("AcquireTimeoutMillis", -1L)))
                .hasRootCauseInstanceOf(IllegalArgumentException.class).rootCause().hasMessageContaining("acquireTimeout");
        assertThat(ds.getPool().stats().minSize()).as("a refused change changes nothing").isEqualTo(2);
        assertThat(attribute(ds, "AcquireTimeoutMillis")).isEqualTo(250L);
    }
}
