package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.CircuitBreakerState;
import dev.loompool.PoolException;
import dev.loompool.ServiceUnavailableException;
import dev.loompool.stub.StubConnection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Broken connections, the circuit breaker, and the error table of DESIGN.md §4. */
class ErrorsTest extends StubSupport {

    @Test
    void aBrokenConnectionIsDestroyedAndTheNextStatementBindsAFreshOne() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        try (Connection c = ds.getConnection()) {
            BindingTest.query(c, "SELECT 1");
            SQLException terminated = new SQLException("terminating connection due to administrator command", "57P01");
            stub(1).loseNext(terminated);
            assertThatThrownBy(() -> BindingTest.query(c, "SELECT 2")).isSameAs(terminated);
            assertThat(stub(1).isClosed()).as("the broken connection is destroyed").isTrue();
            BindingTest.query(c, "SELECT 3");
        }
        assertThat(stub(2).sql()).containsExactly("SELECT 3");
        assertThat(ds.getPool().stats().total()).isEqualTo(1);
    }

    @Test
    void aConnectionSqlStateOnALiveConnectionIsTheApplicationsErrorNotABreak() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setCircuitBreakerFailureThreshold(1);
        try (Connection c = ds.getConnection()) {
            BindingTest.query(c, "SELECT 0");
            SQLException raised = new SQLException("business rule failed", "08006");
            stub(1).failNext(raised); // the server raised it and keeps the connection
            assertThatThrownBy(() -> BindingTest.query(c, "SELECT 1")).isSameAs(raised);
            BindingTest.query(c, "SELECT 2");
        }
        assertThat(stub(1).isClosed()).as("the live connection is kept").isFalse();
        assertThat(stub(1).sql()).containsExactly("SELECT 0", "SELECT 2");
        assertThat(ds.getPool().state()).isEqualTo(CircuitBreakerState.ACTIVE);
    }

    @Test
    void aConnectionThatBreaksInsideATransactionRefusesToGoOnUntilRolledBack() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            BindingTest.query(c, "INSERT 1");
            stub(1).loseNext(new SQLException("connection reset", "08006"));
            assertThatThrownBy(() -> BindingTest.query(c, "INSERT 2")).hasMessage("connection reset");
            assertThatThrownBy(() -> BindingTest.query(c, "INSERT 3")).hasMessageContaining("rollback()");
            assertThatThrownBy(c::commit).hasMessageContaining("cannot commit");
            c.rollback();
            BindingTest.query(c, "INSERT 4");
            c.commit();
        }
        assertThat(stub(2).sql()).containsExactly("INSERT 4", "COMMIT");
    }

    @Test
    void anOrdinarySqlErrorKeepsTheConnection() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        try (Connection c = ds.getConnection()) {
            stub0(ds, c).failNext(new SQLException("syntax error", "42601"));
            // a query, which the allowlist lets go: SQL it cannot read would pin as session state
            assertThatThrownBy(() -> BindingTest.query(c, "SELECT * FROM missing")).hasMessage("syntax error");
            BindingTest.query(c, "SELECT 1");
        }
        assertThat(db.connects()).isEqualTo(1);
        assertThat(stub(1).isClosed()).isFalse();
    }

    /** Binds, so that stub 1 exists, and returns it. */
    private StubConnection stub0(LoomPoolDataSource ds, Connection c) throws SQLException {
        BindingTest.query(c, "SELECT 0");
        return stub(1);
    }

    @Test
    void aFailedConnectReachesTheCallerAsTheDriverSaidItWithThePoolNamed() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        SQLException refused = new SQLException("Connection refused", "08001");
        db.failNextConnect(refused);
        try (Connection c = ds.getConnection()) {
            assertThatThrownBy(() -> BindingTest.query(c, "SELECT 1")).isInstanceOf(SQLException.class)
                    .hasMessage("pool '" + ds.getPoolName() + "': could not open a connection (total=0, idle=0, inUse=0, "
                            + "pending=0, minSize=0, maxSize=4): Connection refused")
                    .satisfies(e -> assertThat(e.getCause()).isSameAs(refused))
                    .extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("08001");
            assertThat(refused.getSuppressed()).as("the driver's own exception is left as it was").isEmpty();
        }
    }

    @Test
    void repeatedConnectFailuresOpenTheBreakerWhichFailsFastAndRecoversAfterRotation() throws SQLException {
        dev.loompool.ManualClockAccess clock = new dev.loompool.ManualClockAccess();
        LoomPoolDataSource ds = dataSource();
        ds.setClock(clock);
        ds.setCircuitBreakerFailureThreshold(3);
        ds.setCircuitBreakerOpenDuration(Duration.ofSeconds(5));
        db.requirePassword("new-secret");
        AtomicReference<String> password = new AtomicReference<>("old-secret");
        AtomicInteger asked = new AtomicInteger();
        ds.setCredentialsSupplier(() -> {
            asked.incrementAndGet();
            return new Credentials("app", password.get());
        });
        try (Connection c = ds.getConnection()) {
            for (int i = 0; i < 3; i++) {
                assertThatThrownBy(() -> BindingTest.query(c, "SELECT 1")).isInstanceOf(SQLException.class)
                        .extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("28P01");
            }
            assertThat(ds.getPool().state()).isEqualTo(CircuitBreakerState.INACTIVE);
            int connects = db.connects();
            for (int i = 0; i < 100; i++) {
                assertThatThrownBy(() -> BindingTest.query(c, "SELECT 1"))
                        .isInstanceOf(SQLTransientConnectionException.class)
                        .hasCauseInstanceOf(ServiceUnavailableException.class)
                        .hasMessageContaining(ds.getPoolName())
                        .hasMessageContaining("after repeated connection failures");
            }
            assertThat(db.connects()).as("no connect attempt while the breaker is open").isEqualTo(connects);
            password.set("new-secret");
            clock.advance(Duration.ofSeconds(5));
            BindingTest.query(c, "SELECT 1");
            assertThat(ds.getPool().state()).isEqualTo(CircuitBreakerState.ACTIVE);
        }
        assertThat(asked.get()).as("credentials are asked for at every connect").isEqualTo(db.connects());
    }

    @Test
    void aCircuitOpenedByHandAfterAConnectionWasRetiredStillSaysByHand() throws SQLException {
        dev.loompool.ManualClockAccess clock = new dev.loompool.ManualClockAccess();
        LoomPoolDataSource ds = dataSource();
        ds.setClock(clock);
        ds.setMaxLifetime(Duration.ofSeconds(1));
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            BindingTest.query(c, "SELECT 1");
            clock.advance(Duration.ofSeconds(2));
            c.commit(); // given back past its lifetime: retired, which the breaker does not count
        }
        try (Connection c = ds.getConnection()) {
            BindingTest.query(c, "SELECT 1");
        }
        ds.getPool().deactivate();
        assertThatThrownBy(() -> {
            try (Connection c = ds.getConnection()) {
                BindingTest.query(c, "SELECT 1");
            }
        }).hasMessageContaining("set INACTIVE by hand").hasMessageNotContaining("connection failures");
    }

    @Test
    void anAcquireTimeoutNamesThePoolAndItsCounts() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setMaxSize(1);
        ds.setAcquireTimeout(Duration.ZERO);
        try (Connection holder = ds.getConnection(); Connection other = ds.getConnection()) {
            holder.setAutoCommit(false);
            BindingTest.query(holder, "SELECT 1");
            assertThatThrownBy(() -> BindingTest.query(other, "SELECT 2"))
                    .isInstanceOf(SQLTransientConnectionException.class)
                    .hasMessageContaining("'" + ds.getPoolName() + "'")
                    .hasMessageContaining("total=1, idle=0, inUse=1");
        }
    }

    @Test
    void aClosedPoolAnswersWith08003() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        Connection c = ds.getConnection();
        ds.close();
        assertThatThrownBy(ds::getConnection).isInstanceOf(SQLException.class)
                .extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("08003");
        assertThatThrownBy(() -> BindingTest.query(c, "SELECT 1")).isInstanceOf(SQLException.class)
                .extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("08003");
    }

    @Test
    void thePoolViewIsReadOnly() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.start();
        assertThatThrownBy(() -> ds.getPool().acquire()).isInstanceOf(PoolException.class).hasMessageContaining("read-only");
        assertThatThrownBy(() -> ds.getPool().tryAcquire()).isInstanceOf(PoolException.class);
        ds.getPool().deactivate();
        assertThat(ds.getPool().state()).isEqualTo(CircuitBreakerState.INACTIVE);
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT 1")) {
            throw new AssertionError("prepared while the breaker is open: " + ps);
        } catch (SQLTransientConnectionException expected) {
            assertThat(expected.getCause()).isInstanceOf(ServiceUnavailableException.class);
            assertThat(((ServiceUnavailableException) expected.getCause()).heldByHand()).isTrue();
            assertThat((Throwable) expected).as("an operator's hold is not an outage")
                    .hasMessageContaining("set INACTIVE by hand").hasMessageNotContaining("connection failures");
        }
    }

    @Test
    void aConnectionLostOnItsWayBackIsRetiredAndOnlyFailedConnectsOpenTheBreaker() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setCircuitBreakerFailureThreshold(1);
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            BindingTest.query(c, "INSERT 1");
            stub(1).close(); // the rollback on return will fail: the connection is gone
        }
        assertThat(ds.getPool().state()).as("one dead connection says nothing about the database")
                .isEqualTo(CircuitBreakerState.ACTIVE);
        assertThat(ds.getPool().stats().total()).as("the dead one was closed, not reused").isZero();
        db.failNextConnect(new SQLException("Connection refused", "08001"));
        try (Connection c = ds.getConnection()) {
            assertThatThrownBy(() -> BindingTest.query(c, "SELECT 1")).isInstanceOf(SQLException.class);
        }
        assertThat(ds.getPool().state()).as("a failed connect is evidence").isEqualTo(CircuitBreakerState.INACTIVE);
    }
}
