package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * A handle ended by another thread (a watchdog's abort, or a close) while its owner is inside a
 * call: waiting for a connection, or handling the driver's error. Found by a review attack on
 * PostgreSQL (a watchdog aborting requests stuck in pg_sleep or waiting for the pool's only
 * connection); forced here on the stub driver.
 */
class ForeignEndTest extends StubSupport {

    /**
     * The owner's statement fails with a connection error (as the abort's own socket close makes
     * it, in Attack15bPgTest) and, inside LogicalConnection.error, between its read of physical and
     * its unbind(), a watchdog's abort (or close) ends the handle and nulls physical: the owner gets
     * a NullPointerException instead of the driver's SQLException.
     */
    private void endDuringOwnersErrorHandling(boolean abort) throws Exception {
        LoomPoolDataSource ds = GateDriver.route(dataSource(), db.url());
        ds.setMaxSize(1);
        Connection c = ds.getConnection();
        c.setAutoCommit(false);
        Statement st = c.createStatement();
        st.execute("INSERT 1");
        stub(1).loseNext(new SQLException("I/O error, connection gone", "08006"));
        // the owner's isClosed() is BrokenConnections.lost: the owner is inside LogicalConnection.error
        GateDriver.Held owner = GateDriver.hold("isClosed", () -> st.execute("INSERT 2"));
        if (abort) {
            c.abort(Runnable::run);
        } else {
            c.close();
        }
        owner.release();
        assertThat(ds.getPool().stats().inUse()).isZero();
        assertThat(ds.getOpenHandles()).isZero();
        assertThat(stub(1).sql()).doesNotContain("COMMIT");
        assertThat(owner.failure().get()).as("the owner gets the driver's exception").isInstanceOf(SQLException.class);
    }

    @Test
    void anAbortDuringTheOwnersErrorHandlingLeavesItTheDriversException() throws Exception {
        endDuringOwnersErrorHandling(true);
    }

    @Test
    void aCloseDuringTheOwnersErrorHandlingLeavesItTheDriversException() throws Exception {
        endDuringOwnersErrorHandling(false);
    }

    /** Minimal form of the acquire-wait leak: abort/close while the owner waits for the only connection. */
    private void endWhileOwnerWaits(boolean abort) throws Exception {
        LoomPoolDataSource ds = dataSource();
        ds.setMaxSize(1);
        Connection b = ds.getConnection();
        b.setAutoCommit(false);
        try (Statement s = b.createStatement()) {
            s.execute("INSERT B");
        }
        Connection a = ds.getConnection();
        Thread owner = new Thread(() -> {
            try (Statement st = a.createStatement()) {
                a.setAutoCommit(false);
                st.execute("INSERT A");
                a.commit();
            } catch (SQLException e) {
                // expected: the handle was ended
            } finally {
                try { a.close(); } catch (SQLException ignored) { }
            }
        }, "owner");
        owner.start();
        eventually("owner waits in acquire", () -> owner.getState() == Thread.State.TIMED_WAITING
                || owner.getState() == Thread.State.WAITING);
        if (abort) {
            a.abort(Runnable::run);
        } else {
            a.close();
        }
        b.commit();
        b.close();
        owner.join();
        assertThat(a.isClosed()).isTrue();
        assertThat(ds.getPool().stats().inUse()).as("inUse after everything closed").isZero();
        assertThat(ds.getOpenHandles()).as("open handles after everything closed").isZero();
        assertThat(stub(1).sql()).as("A's work never ran").doesNotContain("INSERT A");
    }

    @Test
    void anAbortWhileTheOwnerWaitsForAConnectionLeaksNothing() throws Exception {
        endWhileOwnerWaits(true);
    }

    @Test
    void aCloseWhileTheOwnerWaitsForAConnectionLeaksNothing() throws Exception {
        endWhileOwnerWaits(false);
    }
}
