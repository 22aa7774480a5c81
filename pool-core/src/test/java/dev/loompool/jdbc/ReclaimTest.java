package dev.loompool.jdbc;

import static dev.loompool.jdbc.BindingTest.query;
import static dev.loompool.jdbc.ReclaimSupport.PERIOD;
import static dev.loompool.jdbc.ReclaimerWaits.awaitScans;
import static dev.loompool.jdbc.ReclaimerWaits.gcUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.jdbc.internal.handle.Internals;
import dev.loompool.jdbc.internal.lifecycle.ReclaimerInternals;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Handles whose thread ended, or that were dropped, without close (DESIGN.md §4, "Coroutine end"):
 * a handle dropped while bound is always reclaimed; a handle whose last user ended is reclaimed
 * only with reclaimOnOwnerExit, a full period later, and only if no other thread used it since.
 */
class ReclaimTest extends StubSupport {

    private final ReclaimSupport reclaimer = new ReclaimSupport();

    @FunctionalInterface
    interface JdbcWork<T> {
        T run() throws SQLException;
    }

    /** Runs {@code work} on a thread of its own and returns once that thread has ended. */
    static <T> T onThreadThatEnds(JdbcWork<T> work) throws InterruptedException {
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                result.set(work.run());
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "ends-" + System.nanoTime());
        t.start();
        t.join();
        if (failure.get() != null) {
            throw new AssertionError("the thread failed", failure.get());
        }
        return result.get();
    }

    private static Connection openTransaction(LoomPoolDataSource ds, String sql) throws SQLException {
        Connection c = ds.getConnection();
        c.setAutoCommit(false);
        query(c, sql);
        return c;
    }

    // ---- item 5: a Connection may outlive the thread that opened or last used it -----------------

    /**
     * A scan reads a connection's binding, then finds the thread of its holder ended. If the holder
     * closed in between and its thread then ended, that is no leak: before, it was reported as one
     * (a warning and the leak count), which 10,000 virtual threads doing their work and ending
     * turned into spurious warnings (P8 showed them).
     */
    @Test
    void aHolderThatLetGoBeforeItsThreadEndedIsNoLeakToAScanThatReadItsBindingBefore() throws Exception {
        for (boolean reclaim : new boolean[] {false, true}) {
            LoomPoolDataSource ds = dataSource();
            ds.setClock(reclaimer.clock);
            ds.setReclaimOnOwnerExit(reclaim);
            AtomicReference<Object> physical = new AtomicReference<>();
            long binding = onThreadThatEnds(() -> {
                try (Connection c = ds.getConnection(); var s = c.createStatement()) {
                    s.execute("SELECT 1"); // the open statement keeps it bound
                    physical.set(Internals.handle(c).connection());
                    return Internals.binding(physical.get());
                }
            });
            assertThat(Internals.binding(physical.get())).as("closed: idle").isZero();
            ReclaimerInternals.lookAtOwner(physical.get(), binding);
            reclaimer.clock.advance(PERIOD.multipliedBy(2));
            ReclaimerInternals.lookAtOwner(physical.get(), binding);
            assertThat(ds.leaksReported()).as("reclaimOnOwnerExit=%s", reclaim).isZero();
            assertThat(ds.getReclaimedConnections()).isZero();
            assertThat(ds.getPool().stats().inUse()).isZero();
            ds.close();
        }
    }

    @Test
    void aTransactionHandedOverByAThreadThatEndedIsNotRolledBack() throws Exception {
        LoomPoolDataSource ds = dataSource();
        Connection c = onThreadThatEnds(() -> openTransaction(ds, "INSERT 1"));
        awaitScans(3);
        query(c, "INSERT 2");
        c.commit();
        c.close();
        assertThat(stub(1).sql()).containsExactly("INSERT 1", "INSERT 2", "COMMIT");
        assertThat(ds.getReclaimedConnections()).isZero();
        assertThat(ds.getOpenHandles()).isZero();
        assertThat(ds.getPool().stats().inUse()).isZero();
    }

    @Test
    void aTransactionWhoseFirstStatementRanOnAHelperThreadIsNotRolledBack() throws Exception {
        LoomPoolDataSource ds = dataSource();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            onThreadThatEnds(() -> {
                query(c, "INSERT 1"); // the helper binds the connection
                return null;
            });
            awaitScans(3);
            query(c, "INSERT 2");
            c.commit();
        }
        assertThat(stub(1).sql()).containsExactly("INSERT 1", "INSERT 2", "COMMIT");
        assertThat(ds.getReclaimedConnections()).isZero();
    }

    @Test
    void aListenConnectionOpenedByAStartupThreadKeepsItsSession() throws Exception {
        LoomPoolDataSource ds = dataSource();
        Connection listener = onThreadThatEnds(() -> {
            Connection c = ds.getConnection();
            query(c, "LISTEN jobs");
            return c;
        });
        awaitScans(3);
        assertThat(listener.unwrap(LoomConnection.class).pinReasons()).contains(PinReason.SESSION_STATE);
        query(listener, "SELECT 1"); // the worker polls on the session the startup thread set up
        assertThat(stub(1).sql()).containsExactly("LISTEN jobs", "SELECT 1");
        assertThat(ds.getReclaimedConnections()).isZero();
        listener.close();
        assertThat(ds.getOpenHandles()).isZero();
    }

    @Test
    void byDefaultAnOwnerThatEndsWhileBoundIsReportedOnceAndNotReclaimed() throws Exception {
        LoomPoolDataSource ds = dataSource();
        Connection c = onThreadThatEnds(() -> openTransaction(ds, "INSERT 1"));
        awaitScans(4);
        assertThat(ds.leaksReported()).as("one warning, however many scans see it").isEqualTo(1);
        assertThat(ds.getReclaimedConnections()).isZero();
        assertThat(c.unwrap(LoomConnection.class).isBound()).isTrue();
        c.rollback();
        c.close();
        assertThat(stub(1).sql()).containsExactly("INSERT 1", "ROLLBACK");
    }

    @Test
    void anUnboundHandleOfAnEndedThreadHoldsNothingToReclaim() throws Exception {
        LoomPoolDataSource ds = reclaimer.reclaiming(dataSource());
        Connection c = onThreadThatEnds(() -> {
            Connection handle = ds.getConnection();
            query(handle, "SELECT 1"); // never closed, but not bound either
            return handle;
        });
        reclaimer.clock.advance(PERIOD.multipliedBy(3));
        awaitScans(3);
        assertThat(ds.getPool().stats().inUse()).isZero();
        assertThat(ds.getReclaimedConnections()).isZero();
        query(c, "SELECT 2");
        c.close();
    }

    // ---- reclaimOnOwnerExit --------------------------------------------------------------------------

    @Test
    void withReclaimOnOwnerExitAHandleWhoseThreadEndedIsReclaimedAfterOneFullPeriodNotBefore() throws Exception {
        LoomPoolDataSource ds = reclaimer.reclaiming(dataSource());
        Connection leaked = onThreadThatEnds(() -> openTransaction(ds, "INSERT 1"));
        awaitScans(3); // the housekeeper has seen the owner gone; the clock has not moved
        assertThat(ds.getReclaimedConnections()).isZero();
        reclaimer.clock.advance(PERIOD.minusMillis(1));
        awaitScans(2);
        assertThat(ds.getReclaimedConnections()).as("not before a full period").isZero();
        assertThat(ds.getPool().stats().inUse()).isEqualTo(1);
        reclaimer.clock.advance(Duration.ofMillis(1));
        eventually("the connection is reclaimed", () -> ds.getPool().stats().inUse() == 0);
        assertThat(stub(1).sql()).containsExactly("INSERT 1", "ROLLBACK");
        assertThat(ds.getReclaimedConnections()).isEqualTo(1);
        assertThat(ds.getOpenHandles()).isZero();
        assertThatThrownBy(() -> query(leaked, "SELECT 1")).isInstanceOf(SQLException.class)
                .hasMessageStartingWith("connection was reclaimed: its owner thread");
        assertThatThrownBy(leaked::commit).hasMessageStartingWith("connection was reclaimed: ");
        leaked.close();
        assertThat(ds.getOpenHandles()).isZero();
    }

    @Test
    void withReclaimOnOwnerExitAHandleALiveThreadUsesIsNotReclaimed() throws Exception {
        LoomPoolDataSource ds = reclaimer.reclaiming(dataSource());
        Connection c = onThreadThatEnds(() -> openTransaction(ds, "INSERT 1"));
        awaitScans(2);
        reclaimer.clock.advance(PERIOD.dividedBy(2));
        query(c, "INSERT 2"); // this thread takes it over
        reclaimer.clock.advance(PERIOD.multipliedBy(3));
        awaitScans(3);
        assertThat(ds.getReclaimedConnections()).isZero();
        c.commit();
        c.close();
        assertThat(stub(1).sql()).containsExactly("INSERT 1", "INSERT 2", "COMMIT");
    }

    @Test
    void withReclaimOnOwnerExitAHandleAnotherThreadUsedInThePeriodIsNotReclaimedThen() throws Exception {
        LoomPoolDataSource ds = reclaimer.reclaiming(dataSource());
        Connection c = onThreadThatEnds(() -> openTransaction(ds, "INSERT 1"));
        awaitScans(2); // seen: its owner ended
        reclaimer.clock.advance(PERIOD.dividedBy(2));
        onThreadThatEnds(() -> {
            query(c, "INSERT 2"); // another thread used it in the period, then ended too
            return null;
        });
        reclaimer.clock.advance(PERIOD.dividedBy(2).plusMillis(50)); // a full period since the first owner was seen gone
        awaitScans(2);
        assertThat(ds.getReclaimedConnections()).as("the second user ended less than a period ago").isZero();
        reclaimer.clock.advance(PERIOD);
        eventually("reclaimed a full period after its last user ended", () -> ds.getReclaimedConnections() == 1);
        assertThat(stub(1).sql()).containsExactly("INSERT 1", "INSERT 2", "ROLLBACK");
        assertThat(ds.getOpenHandles()).isZero();
    }

    // ---- dropped without close -----------------------------------------------------------------------

    @Test
    void aHandleDroppedWithoutCloseIsReclaimedOnceCollected() throws Exception {
        LoomPoolDataSource ds = dataSource();
        pinAndDrop(ds);
        assertThat(ds.getPool().stats().inUse()).isEqualTo(1);
        gcUntil("the dropped handle is collected and its connection reclaimed", () -> ds.getPool().stats().inUse() == 0);
        assertThat(ds.getReclaimedConnections()).isEqualTo(1);
        assertThat(ds.getOpenHandles()).isZero();
        assertThat(stub(1).sql()).containsExactly("INSERT 1", "ROLLBACK");
    }

    private static void pinAndDrop(LoomPoolDataSource ds) throws SQLException {
        openTransaction(ds, "INSERT 1");
    }

    @Test
    void aLiveOwnerKeepsItsConnectionAcrossScans() throws Exception {
        LoomPoolDataSource ds = reclaimer.reclaiming(dataSource());
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            query(c, "INSERT 1");
            reclaimer.clock.advance(PERIOD.multipliedBy(2));
            awaitScans(3);
            assertThat(c.unwrap(LoomConnection.class).isBound()).isTrue();
            assertThat(ds.getReclaimedConnections()).isZero();
            c.commit();
        }
        assertThat(stub(1).sql()).containsExactly("INSERT 1", "COMMIT");
    }
}
