package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.CircuitBreakerState;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * A driver that fails with a bug of its own while the pool resets a returned connection (the
 * driver matrix found MariaDB Connector/J 2.7's reset() throwing a NullPointerException): the
 * connection is closed, as after any failed reset, and it is no evidence that the database is
 * down, so the circuit breaker stays closed.
 */
class DriverFaultInResetTest extends StubSupport {

    @Test
    void aDriverFaultWhileResettingAReturnedConnectionClosesItAndIsNoBreakerFailure() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setMaxSize(1);
        ds.setCircuitBreakerFailureThreshold(2);
        for (int round = 1; round <= 4; round++) {
            try (Connection c = ds.getConnection()) {
                c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE); // a setting the return resets
                try (Statement st = c.createStatement()) {
                    st.execute("SELECT 1");
                    db.latest().faultOnNextNetworkTimeout(new NullPointerException("the driver's own bug"));
                } // the statement's close lets the connection go: the reset meets the fault
            }
            assertThat(ds.getPool().state()).as("after %d faulty resets", round).isEqualTo(CircuitBreakerState.ACTIVE);
        }
        assertThat(db.connects()).as("each faulty connection closed, a fresh one for the next borrower").isEqualTo(4);
    }

    /**
     * The same bug met while a handle's own setting is replayed on the connection it binds: the
     * caller gets the driver's exception, as without the pool, and the connection goes back to
     * the pool. It stayed out of it, and a pool of one then served nobody.
     */
    @Test
    void aDriverFaultWhileAHandlesSettingIsReplayedGivesTheConnectionBack() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setMaxSize(1);
        ds.setAcquireTimeout(java.time.Duration.ofSeconds(2));
        try (Connection first = ds.getConnection(); Statement st = first.createStatement()) {
            st.execute("SELECT 1"); // the pool's one connection is made
        }
        NullPointerException bug = new NullPointerException("the driver's own bug");
        try (Connection a = ds.getConnection()) {
            a.setNetworkTimeout(Runnable::run, 1000); // remembered, replayed at the next bind
            db.latest().faultOnNextNetworkTimeout(bug);
            assertThatThrownBy(a::createStatement).as("what the driver threw").isSameAs(bug);
        }
        try (Connection b = ds.getConnection(); Statement st = b.createStatement()) {
            st.execute("SELECT 1"); // waited for a connection that never came back, and timed out
        }
        assertThat(db.connects()).as("B was served by the pool's one connection").isEqualTo(1);
    }
}
