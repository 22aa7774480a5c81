package dev.loompool.jdbc.internal.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.PoolClock;
import dev.loompool.jdbc.internal.physical.JdbcPool;
import dev.loompool.stub.StubConnection;
import dev.loompool.stub.StubDatabase;
import dev.loompool.stub.StubDriver;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the start ({@link Startup}) checks beyond the record (DESIGN.md §4, "Start", "Incompatible
 * setups"): a URL or a driver that cannot serve is refused before any connect, naming the setting
 * and with no password in what it throws; a replica that fails closes the pools made before it;
 * and a started pool's connections get the configured defaults.
 */
class StartupTest {

    private static final AtomicInteger DATABASE_NUMBER = new AtomicInteger();

    private final String name = "startup" + DATABASE_NUMBER.incrementAndGet();
    private final StubDatabase db = StubDriver.database(name);
    private final PoolClock clock = () -> 1_000_000_000_000L;
    private final List<JdbcPool> started = new ArrayList<>();

    /** A driver that echoes the keystore password in its constructor's failure, as drivers echo what they read. */
    public static final class EchoingDriver implements Driver {
        public EchoingDriver() {
            throw new IllegalStateException("cannot read the keystore with password s3cretPw");
        }

        @Override
        public Connection connect(String url, Properties info) {
            return null;
        }

        @Override
        public boolean acceptsURL(String url) {
            return true;
        }

        @Override
        public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
            return new DriverPropertyInfo[0];
        }

        @Override
        public int getMajorVersion() {
            return 1;
        }

        @Override
        public int getMinorVersion() {
            return 0;
        }

        @Override
        public boolean jdbcCompliant() {
            return false;
        }

        @Override
        public Logger getParentLogger() {
            return Logger.getGlobal();
        }
    }

    private JdbcPool start(ConfigBuilder b) throws SQLException {
        JdbcPool pool = b.start(clock);
        started.add(pool);
        return pool;
    }

    @AfterEach
    void closePools() {
        started.forEach(JdbcPool::close);
    }

    private static void noSecretIn(Throwable thrown, String secret) {
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            assertThat(String.valueOf(t.getMessage())).as("message of %s", t.getClass().getName()).doesNotContain(secret);
        }
    }

    @Test
    void aReplicaUrlThatTurnsOnTheDriversOwnPoolIsRefusedNamingItsIndexBeforeAnyConnect() {
        ConfigBuilder b = new ConfigBuilder(db.url());
        b.limits = ConfigBuilder.limits(1, 4);
        b.replicas = List.of(db.url(), "jdbc:mariadb://127.0.0.1:3306/test?user=root&password=hunter22&pool=true");

        assertThatThrownBy(() -> start(b)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("replicas[1]: jdbcUrl jdbc:mariadb://127.0.0.1:3306/test")
                .hasMessageContaining("pool=true").hasMessageContaining("remove pool=true")
                .satisfies(e -> noSecretIn(e, "hunter22"));
        assertThat(db.connects()).isZero();
    }

    @Test
    void aDriverClassThatIsMissingOrNotADriverIsRefusedNamingTheSetting() {
        ConfigBuilder missing = new ConfigBuilder(db.url());
        missing.driverClassName = "com.example.NoSuchDriver";
        assertThatThrownBy(() -> start(missing)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("driverClassName com.example.NoSuchDriver is not on the class path");

        ConfigBuilder notADriver = new ConfigBuilder(db.url());
        notADriver.driverClassName = "java.lang.String";
        assertThatThrownBy(() -> start(notADriver)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("driverClassName java.lang.String is not a java.sql.Driver");
        assertThat(db.connects()).isZero();
    }

    @Test
    void aDriverClassThatDoesNotAcceptTheUrlIsRefusedWithTheUrlRedacted() {
        ConfigBuilder b = new ConfigBuilder("jdbc:h2:mem:startup;PASSWORD=hunter22");
        b.driverClassName = StubDriver.class.getName();

        assertThatThrownBy(() -> start(b)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("driverClassName dev.loompool.stub.StubDriver does not accept jdbcUrl jdbc:h2:mem:startup")
                .satisfies(e -> noSecretIn(e, "hunter22"));
    }

    @Test
    void aUrlNoDriverAcceptsFailsAsAConnectFailureNamingWhatToDo() {
        ConfigBuilder b = new ConfigBuilder("jdbc:nosuch://db/test?password=hunter22");

        assertThatThrownBy(() -> start(b)).isInstanceOf(SQLException.class)
                .hasMessageStartingWith("no JDBC driver on the class path accepts jdbcUrl jdbc:nosuch://db/test?password=")
                .hasMessageEndingWith("; add the driver, or set driverClassName")
                .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("08001"))
                .satisfies(e -> noSecretIn(e, "hunter22"));
    }

    @Test
    void aDriverThatEchoesThePasswordAsItFailsIsReportedWithThePasswordMaskedThroughoutTheChain() {
        ConfigBuilder b = new ConfigBuilder(db.url());
        b.driverClassName = EchoingDriver.class.getName();

        assertThatThrownBy(() -> start(b)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("driverClassName " + EchoingDriver.class.getName() + " cannot be instantiated")
                .hasRootCauseMessage("cannot read the keystore with password ****")
                .satisfies(e -> noSecretIn(e, "s3cretPw"));
    }

    @Test
    void aReplicaThatCannotStartClosesThePrimaryAndTheReplicasStartedBeforeIt() {
        StubDatabase first = StubDriver.database(name + "-r1");
        StubDatabase second = StubDriver.database(name + "-r2");
        second.down();
        ConfigBuilder b = new ConfigBuilder(db.url());
        b.limits = ConfigBuilder.limits(1, 4);
        b.replicas = List.of(first.url(), second.url());

        assertThatThrownBy(() -> start(b)).isInstanceOf(SQLException.class)
                .hasMessageStartingWith("pool 'lifecycle-replica-2': could not open its minSize=1 connections");

        assertThat(db.connects()).as("the primary had started (premise)").isEqualTo(1);
        assertThat(first.connects()).as("the first replica had started (premise)").isEqualTo(1);
        assertThat(db.open()).as("the primary's connections closed").isZero();
        assertThat(first.open()).as("the first replica's connections closed").isZero();
    }

    @Test
    void eachReplicaGetsAPoolOfItsOwnNamedAfterThePrimaryWithTheSizesItFollows() throws SQLException {
        ConfigBuilder b = new ConfigBuilder(db.url());
        b.limits = ConfigBuilder.limits(3, 6);
        b.replicaMaxSize = 2; // the primary's minSize 3, clamped to 2
        b.replicas = List.of(StubDriver.database(name + "-ra").url(), StubDriver.database(name + "-rb").url());

        JdbcPool pool = start(b);

        assertThat(pool.replicas().pools()).extracting(r -> r.name)
                .containsExactly("lifecycle-replica-1", "lifecycle-replica-2");
        assertThat(pool.replicas().pools()).allSatisfy(r -> {
            assertThat(r.pool.stats().minSize()).isEqualTo(2);
            assertThat(r.pool.stats().maxSize()).isEqualTo(2);
        });
        assertThat(pool.pool.stats().minSize()).isEqualTo(3);
        assertThat(pool.pool.stats().maxSize()).isEqualTo(6);
    }

    @Test
    void theConfiguredDefaultsAndTheInitSqlAreSetOnEveryNewConnection() throws SQLException {
        ConfigBuilder b = new ConfigBuilder(db.url());
        b.limits = ConfigBuilder.limits(1, 4);
        b.autoCommit = false;
        b.transactionIsolation = "SERIALIZABLE";
        b.readOnly = true;
        b.catalog = "cat";
        b.schema = "sch";
        b.connectionInitSql = "SELECT 1";

        start(b);

        StubConnection c = db.connection(1);
        assertThat(c.getAutoCommit()).isFalse();
        assertThat(c.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_SERIALIZABLE);
        assertThat(c.isReadOnly()).isTrue();
        assertThat(c.getCatalog()).isEqualTo("cat");
        assertThat(c.getSchema()).isEqualTo("sch");
        assertThat(c.sql()).contains("SELECT 1");
    }

    @Test
    void withoutConfiguredDefaultsTheDriversOwnAreLeftAlone() throws SQLException {
        ConfigBuilder b = new ConfigBuilder(db.url());
        b.limits = ConfigBuilder.limits(1, 4);

        start(b);

        StubConnection c = db.connection(1);
        assertThat(c.calls("setAutoCommit")).isZero();
        assertThat(c.calls("setTransactionIsolation")).isZero();
        assertThat(c.calls("setReadOnly")).isZero();
        assertThat(c.calls("setCatalog")).isZero();
        assertThat(c.calls("setSchema")).isZero();
        assertThat(c.sql()).isEmpty();
    }
}
