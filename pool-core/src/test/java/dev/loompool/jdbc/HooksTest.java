package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.CircuitBreakerState;
import dev.loompool.PoolListener;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What the Spring Boot starter hooks into: bind observers, pool listeners, eviction. */
class HooksTest extends StubSupport {

    @Test
    void theBindObserverHearsEachBindAndCanPinForAFrameworkTransaction() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        List<LoomConnection> bound = new ArrayList<>();
        ds.setBindObserver(handle -> {
            bound.add(handle);
            handle.beginFrameworkTransaction();
        });
        try (Connection c = ds.getConnection()) {
            BindingTest.query(c, "SELECT 1");
            BindingTest.query(c, "SELECT 2");
            LoomConnection loom = c.unwrap(LoomConnection.class);
            assertThat(bound).containsExactly(loom);
            assertThat(loom.pinReasons()).containsExactly(PinReason.FRAMEWORK_TRANSACTION);
            loom.endFrameworkTransaction();
            assertThat(loom.isBound()).isFalse();
        }
    }

    @Test
    void poolListenersHearTheUnderlyingPool() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        AtomicInteger created = new AtomicInteger();
        AtomicInteger acquired = new AtomicInteger();
        ds.addPoolListener(new PoolListener() {
            @Override
            public void onCreated(long createNanos) {
                created.incrementAndGet();
            }

            @Override
            public void onAcquired(long waitNanos) {
                acquired.incrementAndGet();
            }
        });
        try (Connection c = ds.getConnection()) {
            BindingTest.query(c, "SELECT 1");
            BindingTest.query(c, "SELECT 2");
        }
        assertThat(created).hasValue(1);
        assertThat(acquired).hasValue(2);
    }

    @Test
    void evictIdleClosesTheIdleConnectionsWithoutCountingFailures() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setMinSize(2);
        ds.setCircuitBreakerFailureThreshold(1);
        ds.start();
        assertThat(ds.evictIdle()).isEqualTo(2);
        assertThat(stub(1).isClosed()).as("closed now, not at some later check").isTrue();
        // the second: now, or by the check of every idle connection that a dropped one sets off
        eventually("the second is closed", () -> stub(2).isClosed());
        assertThat(ds.getPool().state()).isEqualTo(CircuitBreakerState.ACTIVE);
        eventually("the pool refills to minSize", () -> ds.getPool().stats().idle() == 2);
        assertThat(db.connects()).isEqualTo(4);
    }
}
