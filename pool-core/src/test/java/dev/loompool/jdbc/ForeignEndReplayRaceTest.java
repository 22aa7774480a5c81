package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A close on another thread while the owner's bind replays the handle's settings (a round trip on
 * PostgreSQL): the owner's work is refused, and the connection goes back reset (review attack).
 */
class ForeignEndReplayRaceTest extends StubSupport {

    @Test
    void aCloseDuringTheSettingsReplayLeaksNothing() throws Exception {
        LoomPoolDataSource ds = GateDriver.route(dataSource(), db.url());
        ds.setMaxSize(1);
        ds.setAcquireTimeout(Duration.ofSeconds(1));
        Connection a = ds.getConnection();
        a.setAutoCommit(false); // binds (a transaction begins)…
        a.commit(); // …and lets go: the handle's settings are replayed at its next binding
        a.setReadOnly(true);
        a.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
        // the owner's bind replays autoCommit false: held there, past isOpen()
        GateDriver.Held owner = GateDriver.hold("setAutoCommit", () -> {
            try {
                Statement st = a.createStatement();
                st.execute("INSERT A");
                st.close();
            } finally {
                try { a.close(); } catch (SQLException ignored) { }
            }
        });
        a.close(); // another thread (a watchdog) closes the handle
        owner.release();
        assertThat(a.isClosed()).isTrue();
        assertThat(owner.failure().get()).as("the owner's work on a closed handle is refused").isInstanceOf(SQLException.class);
        assertThat(stub(1).sql()).as("A's work never ran").doesNotContain("INSERT A");
        assertThat(ds.getPool().stats().inUse()).as("inUse after everything closed").isZero();
        assertThat(ds.getOpenHandles()).as("open handles after everything closed").isZero();
        try (Connection b = ds.getConnection()) {
            assertThat(b.getAutoCommit()).isTrue();
            assertThat(b.isReadOnly()).isFalse();
        }
    }
}
