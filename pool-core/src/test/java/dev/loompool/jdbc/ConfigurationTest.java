package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.jdbc.internal.handle.Internals;
import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** Configuration, validation by the setters and at start, frozen settings and secrets (DESIGN.md §4, "Configuration"). */
class ConfigurationTest extends StubSupport {

    @Test
    void startingWithoutAUrlNamesTheSetting() {
        LoomPoolDataSource ds = dataSource();
        ds.setJdbcUrl(null);
        assertThatThrownBy(ds::getConnection).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("jdbcUrl");
    }

    @Test
    void aValueOutOfRangeIsRefusedByItsSetterNamingTheSettingAndWhatItMayBe() {
        LoomPoolDataSource ds = dataSource();
        assertThatThrownBy(() -> ds.setTransactionIsolation("SNAPSHOT")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("transactionIsolation must be one of READ_UNCOMMITTED, READ_COMMITTED");
        assertThatThrownBy(() -> ds.setIdleTimeout(Duration.ofSeconds(-1)))
                .hasMessage("idleTimeout must be a duration of zero or more, was PT-1S");
        assertThatThrownBy(() -> ds.setAcquireTimeout(null)).hasMessageStartingWith("acquireTimeout must be");
        assertThatThrownBy(() -> ds.setMaxSize(0)).hasMessage("maxSize must be >= 1, was 0");
        assertThatThrownBy(() -> ds.setMinSize(-1)).hasMessage("minSize must be >= 0, was -1");
        assertThatThrownBy(() -> ds.setCircuitBreakerFailureThreshold(-1))
                .hasMessageStartingWith("circuitBreakerFailureThreshold must be >= 0");
        assertThatThrownBy(() -> ds.setReleaseMode(null)).hasMessageContaining("STATEMENT, CLOSE");
        assertThatThrownBy(() -> ds.setServerPooler(null)).hasMessageContaining("NONE, PGBOUNCER_TRANSACTION");
        assertThatThrownBy(() -> ds.setReplicas(java.util.List.of("jdbc:postgresql://r1/db", " ")))
                .hasMessage("replicas[1] must be a JDBC URL, was blank");
        assertThatThrownBy(() -> ds.setReplicaMaxSize(0)).hasMessage("replicaMaxSize must be >= 1, was 0");
        assertThatThrownBy(() -> ds.setReplicaMinSize(-1)).hasMessage("replicaMinSize must be >= 0, was -1");
        ds.setTransactionIsolation("transaction_read_committed");
        assertThat(ds.getIdleTimeout()).as("a refused value leaves the setting as it was").isEqualTo(Duration.ofMinutes(10));
    }

    @Test
    void settingsThatDependOnEachOtherAreCheckedAtStart() {
        LoomPoolDataSource sizes = dataSource();
        sizes.setMinSize(5);
        sizes.setMaxSize(2);
        assertThatThrownBy(sizes::start).hasMessageContaining("minSize must be <= maxSize");
        assertThat(db.connects()).isEqualTo(0);
    }

    @Test
    void theDriversOwnPoolIsRefused() {
        LoomPoolDataSource ds = dataSource();
        ds.setJdbcUrl("jdbc:mariadb://127.0.0.1:3306/test?user=root&pool=true");
        assertThatThrownBy(ds::start).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pool=true").hasMessageContaining("remove");
    }

    @Test
    void configurationIsFrozenOnceStartedButForTheLimits() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.start();
        assertThatThrownBy(() -> ds.setJdbcUrl("jdbc:stub:other")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("frozen");
        assertThatThrownBy(() -> ds.setReleaseMode(ReleaseMode.CLOSE)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("frozen");
        assertThatThrownBy(() -> ds.setCircuitBreakerFailureThreshold(1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("frozen");
        ds.setMaxSize(20); // a limit: changed on the running pool (RuntimeLimitsTest)
        assertThat(ds.getPool().stats().maxSize()).isEqualTo(20);
        ds.close();
        assertThatThrownBy(() -> ds.setMaxSize(5)).isInstanceOf(IllegalStateException.class).hasMessageContaining("frozen");
    }

    @Test
    void startPreWarmsMinSize() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setMinSize(3);
        ds.start();
        assertThat(db.connects()).isEqualTo(3);
        assertThat(ds.getPool().stats().idle()).isEqualTo(3);
    }

    @Test
    void aFailedPreWarmIsAClearSqlException() {
        LoomPoolDataSource ds = dataSource();
        ds.setMinSize(1);
        db.failNextConnect(new SQLException("Connection refused", "08001"));
        assertThatThrownBy(ds::start).isInstanceOf(SQLException.class)
                .hasMessageContaining("could not open its minSize=1 connections to jdbc:stub:")
                .hasMessageContaining("Connection refused");
    }

    @Test
    void propertiesAndCredentialsAreCopiedForEveryConnect() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setMaxSize(2);
        Properties props = new Properties();
        props.setProperty("ssl", "false");
        ds.setDataSourceProperties(props);
        ds.setUsername("app");
        ds.setPassword("s3cret");
        db.requirePassword("s3cret");
        try (Connection a = ds.getConnection(); Connection b = ds.getConnection()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            BindingTest.query(a, "SELECT 1");
            BindingTest.query(b, "SELECT 1"); // a second connect: the stub mutated the first copy
        }
        assertThat(db.connects()).isEqualTo(2);
        assertThat(props).doesNotContainKey("password");
    }

    @Test
    void thePasswordIsNeverPrinted() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setJdbcUrl("jdbc:stub:" + db.name() + "?password=hunter2");
        ds.setPassword("hunter2");
        assertThat(ds.toString()).doesNotContain("hunter2").contains("password=****");
        assertThat(new Credentials("u", "hunter2").toString()).doesNotContain("hunter2");
        assertThat(Internals.redact("jdbc:postgresql://user:hunter2@db/test")).isEqualTo("jdbc:postgresql://user:****@db/test");
    }

    @Test
    void javaBeanToolsSeeTheSettings() throws Exception {
        PropertyDescriptor[] properties = Introspector.getBeanInfo(LoomPoolDataSource.class).getPropertyDescriptors();
        assertThat(Arrays.stream(properties).filter(p -> p.getWriteMethod() != null).map(PropertyDescriptor::getName))
                .contains("jdbcUrl", "url", "username", "password", "maxSize", "minSize", "acquireTimeout",
                        "releaseMode", "circuitBreakerFailureThreshold", "circuitBreakerOpenDuration");
        LoomPoolDataSource ds = dataSource();
        for (PropertyDescriptor p : properties) {
            if (p.getName().equals("maxSize")) {
                p.getWriteMethod().invoke(ds, 7);
            }
        }
        assertThat(ds.getMaxSize()).isEqualTo(7);
    }

    @Test
    void getConnectionWithOtherCredentialsIsNotSupported() {
        LoomPoolDataSource ds = dataSource();
        assertThatThrownBy(() -> ds.getConnection("u", "p")).isInstanceOf(java.sql.SQLFeatureNotSupportedException.class);
    }
}
