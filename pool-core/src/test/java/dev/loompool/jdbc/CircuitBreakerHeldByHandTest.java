package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loompool.CircuitBreakerState;
import dev.loompool.testsupport.PgCluster;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A circuit breaker set INACTIVE by hand through the MBean (DESIGN.md §3 "Circuit breaker":
 * {@code deactivate} sets the state directly) stays INACTIVE: when the background fill succeeds
 * after the failures opened it, or before any opening, and through the strategy's request probes.
 */
class CircuitBreakerHeldByHandTest extends PoolOperationsFixtures {

    /**
     * The breaker opened by the start's failures, then set INACTIVE by hand (an operator holds the
     * pool while they migrate the database); the database comes back; the background fill succeeds.
     * README: "a breaker set INACTIVE by hand stays so".
     */
    @Test
    void aBreakerDeactivatedByHandAfterTheFailuresOpenedItStaysInactiveWhenTheBackgroundFillSucceeds() throws Exception {
        PgCluster pg = cluster();
        pg.stop();
        clusterDown = true;
        LoomPoolDataSource ds = ds("atkops-hand-open", pg.jdbcUrl(DB, "connectTimeout=2"));
        ds.setMinSize(1);
        ds.setInitializationFailTimeout(Duration.ofMillis(-1));
        ds.setCircuitBreakerFailureThreshold(1);
        ds.setCircuitBreakerOpenDuration(Duration.ofHours(1)); // no request probe: only the background can close it
        ds.setRegisterMbeans(true);
        ds.start();
        eventually("the start's failure opens the breaker", () -> ds.getPool().state() == CircuitBreakerState.INACTIVE);
        server.invoke(nameOf("atkops-hand-open"), "deactivatePool", null, null); // the operator's hold
        pg.start();
        clusterDown = false;
        // idle, not total: total counts the slot the background reserves before its connect ends
        eventually("the background fill connects", () -> ds.getPool().stats().idle() >= 1);
        assertThat(ds.getPool().state()).as("held INACTIVE by hand through deactivatePool").isEqualTo(CircuitBreakerState.INACTIVE);
        try (Connection c = ds.getConnection()) {
            assertThat(catchThrowable(() -> text(c, "SELECT 1"))).isInstanceOf(SQLTransientConnectionException.class);
        }
    }

    /**
     * The same hold without the background fill (initializationFailTimeout 0): an outage opens the
     * breaker, the operator deactivates it by hand, the database comes back, requests keep coming.
     * The strategy's own back-off probe must not end a hold set by hand.
     */
    @Test
    void aBreakerDeactivatedByHandDuringAnOutageIsNotEndedByARequestProbe() throws Exception {
        PgCluster pg = cluster();
        LoomPoolDataSource ds = ds("atkops-hand-probe", pg.jdbcUrl(DB, "connectTimeout=2"));
        ds.setCircuitBreakerFailureThreshold(1);
        ds.setCircuitBreakerOpenDuration(Duration.ofMillis(640)); // first probe after 10 ms
        ds.setRegisterMbeans(true);
        ds.start();
        pg.stop();
        clusterDown = true;
        try (Connection c = ds.getConnection()) {
            assertThat(catchThrowable(() -> text(c, "SELECT 1"))).isInstanceOf(SQLException.class);
        }
        eventually("the outage opens the breaker", () -> ds.getPool().state() == CircuitBreakerState.INACTIVE);
        server.invoke(nameOf("atkops-hand-probe"), "deactivatePool", null, null);
        pg.start();
        clusterDown = false;
        List<String> served = new ArrayList<>();
        for (int i = 0; i < 100; i++) { // 100 requests over a few seconds, well past the 640 ms open duration
            try (Connection c = ds.getConnection()) {
                served.add("request " + i + " got " + text(c, "SELECT 'served'"));
            } catch (SQLTransientConnectionException heldAsAsked) {
                // failing fast: the hold
            }
            LockSupport.parkNanos(Duration.ofMillis(30).toNanos());
        }
        assertThat(served).as("requests served while held INACTIVE by hand").isEmpty();
        assertThat(ds.getPool().state()).isEqualTo(CircuitBreakerState.INACTIVE);
    }

    /** The same hold, set while the breaker is still ACTIVE (fewer failures than the threshold). */
    @Test
    void aBreakerDeactivatedByHandBeforeAnyOpeningStaysInactiveWhenTheBackgroundFillSucceeds() throws Exception {
        PgCluster pg = cluster();
        pg.stop();
        clusterDown = true;
        LoomPoolDataSource ds = ds("atkops-hand-active", pg.jdbcUrl(DB, "connectTimeout=2"));
        ds.setMinSize(1);
        ds.setInitializationFailTimeout(Duration.ofMillis(-1));
        ds.setCircuitBreakerFailureThreshold(1_000_000);
        ds.setRegisterMbeans(true);
        ds.start();
        assertThat(ds.getPool().state()).isEqualTo(CircuitBreakerState.ACTIVE);
        server.invoke(nameOf("atkops-hand-active"), "deactivatePool", null, null);
        pg.start();
        clusterDown = false;
        // idle, not total: total counts the slot the background reserves before its connect ends
        eventually("the background fill connects", () -> ds.getPool().stats().idle() >= 1);
        assertThat(ds.getPool().state()).isEqualTo(CircuitBreakerState.INACTIVE);
    }
}
