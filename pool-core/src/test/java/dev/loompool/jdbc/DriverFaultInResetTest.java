package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

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
}
