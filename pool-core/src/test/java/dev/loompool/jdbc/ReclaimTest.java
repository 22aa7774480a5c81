package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Handles whose thread ended, or that were dropped, without close (DESIGN.md §4, "Coroutine end"). */
class ReclaimTest extends StubSupport {

    @Test
    void aHandleWhoseThreadEndedInsideATransactionIsRolledBackAndReturned() throws Exception {
        LoomPoolDataSource ds = dataSource();
        AtomicReference<Connection> leaked = new AtomicReference<>();
        Thread worker = new Thread(() -> {
            try {
                Connection c = ds.getConnection();
                c.setAutoCommit(false);
                BindingTest.query(c, "INSERT 1");
                leaked.set(c);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        worker.start();
        worker.join();
        assertThat(ds.getPool().stats().inUse()).isEqualTo(1);
        eventually("the connection is reclaimed", () -> ds.getPool().stats().inUse() == 0);
        assertThat(stub(1).sql).containsExactly("INSERT 1", "ROLLBACK");
        assertThat(ds.getReclaimedConnections()).isEqualTo(1);
        assertThat(ds.getOpenHandles()).isZero();
        assertThatThrownBy(() -> BindingTest.query(leaked.get(), "SELECT 1"))
                .hasMessage("connection was reclaimed: its owner thread ended");
    }

    @Test
    void anUnboundHandleOfAnEndedThreadHoldsNothingToReclaim() throws Exception {
        LoomPoolDataSource ds = dataSource();
        Thread worker = new Thread(() -> {
            try {
                BindingTest.query(ds.getConnection(), "SELECT 1"); // never closed, but not bound either
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        worker.start();
        worker.join();
        assertThat(ds.getPool().stats().inUse()).isZero();
        assertThat(ds.getReclaimedConnections()).isZero();
    }

    @Test
    void aHandleDroppedWithoutCloseIsReclaimedOnceCollected() throws Exception {
        LoomPoolDataSource ds = dataSource();
        pinAndDrop(ds);
        assertThat(ds.getPool().stats().inUse()).isEqualTo(1);
        eventually("the dropped handle is collected and its connection reclaimed", () -> {
            System.gc();
            return ds.getPool().stats().inUse() == 0;
        });
        assertThat(ds.getReclaimedConnections()).isEqualTo(1);
        assertThat(stub(1).sql).containsExactly("INSERT 1", "ROLLBACK");
    }

    private static void pinAndDrop(LoomPoolDataSource ds) throws SQLException {
        Connection c = ds.getConnection();
        c.setAutoCommit(false);
        BindingTest.query(c, "INSERT 1");
    }

    @Test
    void aLiveOwnerKeepsItsConnectionAcrossScans() throws Exception {
        LoomPoolDataSource ds = dataSource();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            BindingTest.query(c, "INSERT 1");
            long scansBefore = Housekeeping.scans.get();
            eventually("two housekeeping scans ran", () -> Housekeeping.scans.get() >= scansBefore + 2);
            assertThat(c.unwrap(LoomConnection.class).isBound()).isTrue();
            assertThat(ds.getReclaimedConnections()).isZero();
            c.commit();
        }
        assertThat(stub(1).sql).containsExactly("INSERT 1", "COMMIT");
    }
}
