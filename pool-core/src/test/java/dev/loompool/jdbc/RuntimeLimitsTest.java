package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.jdbc.internal.lifecycle.PoolConfig;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Settings read once at start into {@link PoolConfig}; minSize clamped to maxSize when unset; the
 * limits (sizes, timeouts) changed on a running pool through its setters, validated as a whole.
 */
class RuntimeLimitsTest extends StubSupport {

    private final List<Connection> held = new ArrayList<>();

    @AfterEach
    void closeHeld() throws SQLException {
        for (Connection c : held) {
            c.close();
        }
    }

    /** A handle pinned to its physical connection by an open transaction. */
    private Connection bound(LoomPoolDataSource ds) throws SQLException {
        Connection c = ds.getConnection();
        held.add(c);
        c.setAutoCommit(false);
        BindingTest.query(c, "SELECT 1");
        return c;
    }

    private LoomPoolDataSource withDefaultMinSize() {
        LoomPoolDataSource ds = dataSource();
        LoomPoolDataSource fresh = new LoomPoolDataSource(); // dataSource() sets minSize; this one leaves it unset
        fresh.setJdbcUrl(ds.getJdbcUrl());
        fresh.setPoolName(ds.getPoolName());
        ds.close();
        return fresh;
    }

    @Test
    void maxSizeOneWithTheDefaultMinSizeClampsTheMinimumAtConfigurationTime() throws SQLException {
        try (LoomPoolDataSource ds = withDefaultMinSize()) {
            ds.setMaxSize(1);
            assertThat(ds.getMinSize()).as("clamped when set, not at the first getConnection").isEqualTo(1);
            try (Connection c = ds.getConnection()) {
                BindingTest.query(c, "SELECT 1");
            }
            assertThat(ds.getPool().stats().minSize()).isEqualTo(1);
            assertThat(ds.getPool().stats().maxSize()).isEqualTo(1);
            ds.setMaxSize(5); // at run time too, the unset minimum follows maxSize back up to its default
            assertThat(ds.getMinSize()).isEqualTo(2);
            assertThat(ds.getPool().stats().minSize()).isEqualTo(2);
        }
    }

    @Test
    void anExplicitMinSizeAboveMaxSizeIsRefusedAtStartNamingBothKeys() {
        LoomPoolDataSource ds = dataSource();
        ds.setMinSize(3);
        ds.setMaxSize(1);
        assertThatThrownBy(ds::getConnection).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("minSize must be <= maxSize, was minSize=3, maxSize=1");
        assertThat(db.connects()).isZero();
    }

    @Test
    void aLowerMaxSizeClosesTheSurplusIdleConnectionsAtOnce() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        for (int i = 0; i < 4; i++) {
            bound(ds);
        }
        closeHeld();
        held.clear();
        assertThat(ds.getPool().stats().idle()).isEqualTo(4);
        ds.setMaxSize(2);
        assertThat(ds.getMaxSize()).isEqualTo(2);
        assertThat(ds.getPool().stats().total()).isEqualTo(2);
        assertThat(db.open()).isEqualTo(2);
    }

    @Test
    void aLowerMaxSizeRetiresLentConnectionsAsTheyComeBack() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        Connection a = bound(ds);
        Connection b = bound(ds);
        ds.setMaxSize(1);
        assertThat(ds.getPool().stats().total()).as("both lent: nothing to close yet").isEqualTo(2);
        a.close();
        assertThat(ds.getPool().stats().total()).isEqualTo(1);
        assertThat(db.open()).isEqualTo(1);
        b.close();
        assertThat(ds.getPool().stats().idle()).isEqualTo(1);
    }

    @Test
    void aHigherMaxSizeServesAWaiterAtOnce() throws Exception {
        LoomPoolDataSource ds = dataSource();
        ds.setMaxSize(1);
        ds.setAcquireTimeout(Duration.ofSeconds(30));
        bound(ds);
        CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(() -> {
            try (Connection c = ds.getConnection()) {
                BindingTest.query(c, "SELECT 1");
                return 1;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        eventually("the second borrower waits", () -> ds.getPool().stats().pending() == 1);
        ds.setMaxSize(2);
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo(1);
    }

    @Test
    void aChangeThatBreaksTheOrderOfTheSizesIsRefusedAndChangesNothing() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setMinSize(2);
        ds.start();
        assertThatThrownBy(() -> ds.setMaxSize(1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("minSize=2, maxSize=1");
        assertThatThrownBy(() -> ds.setMinSize(5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("minSize=5, maxSize=4");
        assertThatThrownBy(() -> ds.setAcquireTimeout(Duration.ofSeconds(-1)))
                .hasMessage("acquireTimeout must be a duration of zero or more, was PT-1S");
        assertThat(ds.getMaxSize()).isEqualTo(4);
        assertThat(ds.getMinSize()).isEqualTo(2);
        assertThat(ds.getAcquireTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(ds.getPool().stats().maxSize()).isEqualTo(4);
        assertThat(ds.getPool().stats().minSize()).isEqualTo(2);
    }

    @Test
    void aShorterAcquireTimeoutAppliesToTheNextWait() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setMaxSize(1);
        bound(ds);
        ds.setAcquireTimeout(Duration.ofMillis(50));
        try (Connection c = ds.getConnection()) {
            assertThatThrownBy(() -> BindingTest.query(c, "SELECT 1")).isInstanceOf(SQLTransientConnectionException.class)
                    .hasMessageContaining("within 50 ms");
        }
    }

    @Test
    void leakDetectionTurnedOnAtRunTimeRecordsWhereTheNextBindingsWereMade() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        bound(ds);
        assertThat(ds.getBoundHandles().get(0).bindSite()).as("off at start").isNull();
        ds.setLeakDetectionThreshold(Duration.ofMinutes(1));
        bound(ds);
        assertThat(ds.getBoundHandles()).extracting(HandleInfo::bindSite).filteredOn(s -> s != null)
                .singleElement().asString().contains(RuntimeLimitsTest.class.getName());
    }

    @Test
    void theSettingsRecordIsValidatedAndNeverShowsAPassword() {
        LoomPoolDataSource ds = dataSource();
        ds.setJdbcUrl(db.url() + "?password=hunter22");
        ds.setPassword("s3cretPw");
        Properties p = new Properties();
        p.setProperty("sslpassword", "k3ystore");
        ds.setDataSourceProperties(p);
        PoolConfig config = ds.frozen(null);
        assertThat(config.toString()).doesNotContain("hunter22", "s3cretPw", "k3ystore").contains("****");
        assertThat(config.limits().maxSize()).isEqualTo(4);
        p.setProperty("sslpassword", "changed");
        assertThat(config.dataSourceProperties().getProperty("sslpassword")).as("a copy, read once").isEqualTo("k3ystore");
        assertThat(config.credentials().get().password()).isEqualTo("s3cretPw");
        ds.setJdbcUrl(" ");
        assertThatThrownBy(() -> ds.frozen(null)).hasMessageContaining("jdbcUrl is required");
    }
}
