package dev.loompool.jdbc;

import static dev.loompool.jdbc.RacingThreads.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.sql.Connection;
import java.sql.SQLClientInfoException;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A session call the driver refuses on a handle it just bound pins nothing (DESIGN.md §4 "Binding",
 * "Session-state pin"): the handle is bound only for a reason it shows, and the connection goes back.
 */
class RefusedSessionCallLetsTheConnectionGoTest extends StubSupport {

    /** A pool of one stub connection behind the deep gate; the gate disarmed after each test. */
    @RegisterExtension
    final DeepGatedPools gated = new DeepGatedPools(this);

    // =================================================================================================
    // A failing session call leaves the handle bound with no reason
    // =================================================================================================

    /**
     * {@code setClientInfo} on an unbound handle binds it; the driver refuses (SQLClientInfoException).
     * Nothing pins then (no session changed), so the connection must go back, as after any refused call.
     */
    @Test
    void aRefusedSetClientInfoLetsTheConnectionGo() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = gated.one();
            try (Connection a = ds.getConnection()) {
                DeepGateDriver.fault = new DeepGateDriver.Fault(Connection.class, "setClientInfo",
                        new SQLClientInfoException("refused", "HY000", 0, Map.of()));
                try {
                    a.setClientInfo("ApplicationName", "x");
                } catch (SQLClientInfoException expected) {
                    // the driver refused
                }
                boundOnlyForAReason(a);
                freeWithinFiveSeconds(ds);
            }
            assertThat(ds.getOpenHandles()).isZero();
        });
    }

    /** {@code setTypeMap} refused by the driver on a handle it just bound: same invariant. */
    @Test
    void aRefusedSetTypeMapLetsTheConnectionGo() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = gated.one();
            try (Connection a = ds.getConnection()) {
                DeepGateDriver.fault = new DeepGateDriver.Fault(Connection.class, "setTypeMap",
                        new SQLFeatureNotSupportedException("no type maps", "0A000"));
                try {
                    a.setTypeMap(Map.of());
                } catch (SQLException expected) {
                    // refused
                }
                boundOnlyForAReason(a);
                freeWithinFiveSeconds(ds);
            }
            assertThat(ds.getOpenHandles()).isZero();
        });
    }
}
