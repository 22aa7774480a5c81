package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.ManualClockAccess;
import dev.loompool.jdbc.internal.lifecycle.ReclaimerInternals;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Housekeeping as seen through the JDBC layer: idle timeout, max lifetime, validation before hand-out, leak detection, and the pin views. */
class HousekeepingTest extends StubSupport {

    private final ManualClockAccess clock = new ManualClockAccess();

    private LoomPoolDataSource timed() {
        LoomPoolDataSource ds = dataSource();
        ds.setClock(clock);
        ds.setHealthcheckInterval(Duration.ofMillis(5));
        return ds;
    }

    /** Makes {@code n} connections exist and go back idle. */
    private static void open(LoomPoolDataSource ds, int n) throws SQLException {
        Connection[] handles = new Connection[n];
        for (int i = 0; i < n; i++) {
            handles[i] = ds.getConnection();
            handles[i].setAutoCommit(false);
            BindingTest.query(handles[i], "SELECT " + i);
        }
        for (Connection c : handles) {
            c.close();
        }
    }

    @Test
    void idleConnectionsAboveMinSizeCloseAfterTheIdleTimeout() throws SQLException {
        LoomPoolDataSource ds = timed();
        ds.setMinSize(1);
        ds.setIdleTimeout(Duration.ofMinutes(10));
        ds.start();
        open(ds, 3);
        assertThat(ds.getPool().stats().total()).isEqualTo(3);
        clock.advance(Duration.ofMinutes(11));
        eventually("idle connections above minSize close", () -> ds.getPool().stats().total() == 1);
        assertThat(db.open()).isEqualTo(1);
    }

    @Test
    void connectionsPastTheirMaxLifetimeAreRetiredAndReplaced() throws SQLException {
        LoomPoolDataSource ds = timed();
        ds.setMinSize(2);
        ds.setMaxLifetime(Duration.ofMinutes(30));
        ds.start();
        clock.advance(Duration.ofMinutes(31));
        eventually("the old connections are retired and the pool refilled",
                () -> stub(1).isClosed() && stub(2).isClosed() && ds.getPool().stats().total() == 2 && db.connects() >= 4);
        assertThat(ds.getPool().state()).isEqualTo(dev.loompool.CircuitBreakerState.ACTIVE);
    }

    @Test
    void aConnectionIdleOverHalfASecondIsValidatedBeforeHandOut() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setClock(clock);
        try (Connection c = ds.getConnection()) {
            BindingTest.query(c, "SELECT 1");
            BindingTest.query(c, "SELECT 2");
            assertThat(stub(1).calls("isValid")).as("fresh: trusted without a round trip").isZero();
            clock.advance(Duration.ofSeconds(1));
            stub(1).invalidate();
            BindingTest.query(c, "SELECT 3");
        }
        assertThat(stub(1).calls("isValid")).isEqualTo(1);
        assertThat(stub(1).isClosed()).as("the dead idle connection was dropped").isTrue();
        assertThat(stub(2).sql()).containsExactly("SELECT 3");
    }

    /**
     * The release check reads the coarse clock, which lags: the connection then looks returned
     * earlier than it was, and the hand-out validates it sooner, never later.
     */
    @Test
    void aReturnReadOnALaggingCoarseClockMakesTheHandOutValidateNotTrust() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setClock(new dev.loompool.PoolClock() {
            @Override
            public long nanoTime() {
                return clock.nanoTime();
            }

            @Override
            public long coarseNanoTime() {
                return clock.nanoTime() - Duration.ofMillis(600).toNanos();
            }
        });
        try (Connection c = ds.getConnection()) {
            BindingTest.query(c, "SELECT 1"); // a fresh connection: no validation
            assertThat(stub(1).calls("isValid")).isZero();
            BindingTest.query(c, "SELECT 2"); // no time passed, but the return was read 600 ms back
        }
        assertThat(stub(1).calls("isValid")).as("returned 'over half a second ago' on the coarse clock").isEqualTo(1);
    }

    @Test
    void aConnectionHeldPastTheLeakThresholdIsReportedOnce() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setClock(clock);
        ds.setLeakDetectionThreshold(Duration.ofSeconds(10));
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            BindingTest.query(c, "SELECT 1");
            clock.advance(Duration.ofSeconds(11));
            long scans = ReclaimerInternals.reclaimerScans();
            eventually("two scans ran", () -> ReclaimerInternals.reclaimerScans() >= scans + 2);
            c.commit();
        }
        eventually("the leak is reported", () -> leaks(ds) == 1);
    }

    private static long leaks(LoomPoolDataSource ds) {
        try {
            return ds.unwrap(LoomPoolDataSource.class).leaksReported();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void thePinViewsCountBoundHandlesByReason() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        try (Connection tx = ds.getConnection(); Connection pinned = ds.getConnection(); Connection idle = ds.getConnection()) {
            tx.setAutoCommit(false);
            BindingTest.query(tx, "SELECT 1");
            pinned.unwrap(LoomConnection.class).pin();
            BindingTest.query(pinned, "SELECT 2");
            assertThat(ds.getOpenHandles()).as("idle has not used a connection yet").isEqualTo(2);
            assertThat(ds.getPinnedConnections()).containsEntry(PinReason.TRANSACTION, 1)
                    .containsEntry(PinReason.EXPLICIT, 1).containsEntry(PinReason.STATEMENT, 0);
            assertThat(ds.getBoundHandles()).hasSize(2)
                    .allSatisfy(h -> assertThat(h.ownerThread()).isEqualTo(Thread.currentThread().getName()));
        }
        assertThat(ds.getBoundHandles()).isEmpty();
    }
}
