package dev.loompool.jdbc;

import static dev.loompool.jdbc.BindingTest.query;
import static dev.loompool.jdbc.PostgresBackendKiller.terminate;
import static dev.loompool.jdbc.ReclaimerWaits.awaitScans;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.Pool;
import dev.loompool.stub.StubDatabase;
import dev.loompool.stub.StubDriver;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The open-handle count ({@code getOpenHandles()}) stays exact when a handle's connection goes
 * from under it (DESIGN.md §4 "Coroutine end (reclaim)": unbound dropped handles are counted down
 * too): a dropped handle whose connection was evicted, broke, or whose backend was killed; a close
 * on another thread racing the first use; handles first used on a replica.
 */
class OpenHandleCountStaysExactTest extends StubSupport {

    /** Runs the collector and housekeeping scans until {@code condition} holds, or {@code limit} passes. */
    private static boolean gcWithin(Duration limit, BooleanSupplier condition) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            System.gc();
            awaitScans(1);
        }
        return true;
    }

    /**
     * A handle used once (so counted), whose connection then goes (evicted while idle) before any
     * other handle binds it, then dropped without close: nobody puts it under watch, so it is never
     * counted down.
     */
    @Test
    void aDroppedHandleWhoseLastConnectionWasEvictedIsCountedDown() throws Exception {
        LoomPoolDataSource ds = dataSource();
        useOnceAndDrop(ds);
        assertThat(ds.getOpenHandles()).isEqualTo(1);
        ds.evictIdle(); // the connection that served it goes
        eventually("connection 1 is closed", () -> stub(1).isClosed());
        boolean zero = gcWithin(Duration.ofSeconds(10), () -> ds.getOpenHandles() == 0);
        assertThat(zero).as("the dropped handle is counted down; getOpenHandles() = %s", ds.getOpenHandles()).isTrue();
    }

    /** As above, the connection broken under the handle's own (autocommit) statement, and destroyed. */
    @Test
    void aDroppedHandleWhoseConnectionBrokeUnderItIsCountedDown() throws Exception {
        LoomPoolDataSource ds = dataSource();
        Connection c = ds.getConnection();
        query(c, "SELECT 1");
        stub(1).loseNext(new SQLNonTransientConnectionException("terminated", "57P01"));
        try {
            query(c, "SELECT 2");
        } catch (SQLException expected) {
            // the backend went
        }
        eventually("connection 1 is closed", () -> stub(1).isClosed());
        assertThat(ds.getOpenHandles()).isEqualTo(1);
        c = null; // dropped without close
        boolean zero = gcWithin(Duration.ofSeconds(10), () -> ds.getOpenHandles() == 0);
        assertThat(zero).as("the dropped handle is counted down; getOpenHandles() = %s", ds.getOpenHandles()).isTrue();
    }

    /** Control: the same dropped handle, its connection kept, is counted down. */
    @Test
    void control_aDroppedHandleWhoseConnectionStaysIsCountedDown() throws Exception {
        LoomPoolDataSource ds = dataSource();
        useOnceAndDrop(ds);
        assertThat(ds.getOpenHandles()).isEqualTo(1);
        boolean zero = gcWithin(Duration.ofSeconds(10), () -> ds.getOpenHandles() == 0);
        assertThat(zero).as("getOpenHandles() = %s", ds.getOpenHandles()).isTrue();
    }

    private static void useOnceAndDrop(LoomPoolDataSource ds) throws SQLException {
        Connection c = ds.getConnection();
        query(c, "SELECT 1"); // counted on connection 1, which goes back; c stays open, then is dropped
    }

    private static void cycles(LoomPoolDataSource ds, int n) throws SQLException {
        for (int i = 0; i < n; i++) {
            try (Connection c = ds.getConnection()) {
                query(c, "SELECT 1");
            }
        }
    }

    /**
     * A handle whose first use (bind) on one thread races its close on another: whichever wins, once
     * both are done the handle is closed and must not count. Thousands of rounds; the invariant is
     * checked at the end (the count only accumulates), so chance can only hide a drift, not invent one.
     */
    @Test
    void aCloseOnAnotherThreadRacingTheFirstUseNeverLeavesTheHandleCounted() throws Exception {
        LoomPoolDataSource ds = dataSource();
        ds.setMaxSize(2);
        cycles(ds, 1);
        Connection[] slot = new Connection[1];
        java.util.concurrent.atomic.AtomicInteger go = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger done = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger used = new java.util.concurrent.atomic.AtomicInteger();
        int rounds = 50_000;
        Thread user = new Thread(() -> {
            for (int i = 1; i <= rounds; i++) {
                while (go.get() < i) {
                    Thread.onSpinWait();
                }
                try {
                    query(slot[0], "SELECT 1");
                    used.incrementAndGet();
                } catch (SQLException closedMeanwhile) {
                    // lost the race: fine
                }
                done.set(i);
            }
        });
        user.start();
        long began = System.nanoTime();
        int i = 0;
        while (i < rounds && System.nanoTime() - began < Duration.ofSeconds(30).toNanos()) {
            i++;
            Connection c = ds.getConnection();
            slot[0] = c;
            go.set(i); // publishes slot
            for (int spin = (i * 7) % 200; spin > 0; spin--) {
                Thread.onSpinWait(); // vary where the close lands in the bind
            }
            c.close();
            while (done.get() < i) {
                Thread.onSpinWait();
            }
            if (ds.getOpenHandles() != 0) {
                break; // quiescent and every handle closed: any count left is a drift
            }
        }
        if (i < rounds) {
            go.set(rounds + 1);
        }
        user.join();
        System.out.println("[race] rounds " + i + ", the first use won " + used.get() + " times, count "
                + ds.getOpenHandles());
        awaitScans(2);
        assertThat(ds.getOpenHandles()).as("every handle is closed").isZero();
        assertThat(ds.getPool().stats().inUse()).isZero();
    }

    /** Handles first used on a replica count like any other, and go back to 0. */
    @Test
    void handlesFirstUsedOnAReplicaCountAndGoBackToZero() throws Exception {
        StubDatabase replica = StubDriver.database("replica-" + System.nanoTime());
        LoomPoolDataSource ds = dataSource();
        ds.setReplicas(List.of(replica.url()));
        List<Connection> open = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            Connection c = ds.getConnection();
            c.setReadOnly(i % 2 == 0); // half on the replica
            query(c, "SELECT 1");
            open.add(c);
        }
        assertThat(replica.connects()).as("some ran on the replica").isPositive();
        assertThat(ds.getOpenHandles()).isEqualTo(6);
        ds.evictIdle(); // the connections that counted them go (primary's and replica's)
        for (Pool<?> p : ds.getReplicaPools()) {
            assertThat(p).isNotNull();
        }
        awaitScans(1);
        assertThat(ds.getOpenHandles()).as("still 6 open after their connections were retired").isEqualTo(6);
        // closed on other threads
        List<Thread> closers = new ArrayList<>();
        for (Connection c : open) {
            Thread t = new Thread(() -> {
                try {
                    c.close();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            t.start();
            closers.add(t);
        }
        for (Thread t : closers) {
            t.join();
        }
        assertThat(ds.getOpenHandles()).isZero();
    }

    private LoomPoolDataSource pg(int max) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(TestDatabase.POSTGRES.url());
        ds.setPoolName("atk2-pg-" + System.nanoTime());
        ds.setMinSize(0);
        ds.setMaxSize(max);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        pgPools.add(ds);
        return ds;
    }

    private final List<LoomPoolDataSource> pgPools = new ArrayList<>();

    @org.junit.jupiter.api.AfterEach
    void closePgPools() {
        pgPools.forEach(LoomPoolDataSource::close);
    }

    /**
     * {@link #aDroppedHandleWhoseConnectionBrokeUnderItIsCountedDown} on the real server: the
     * backend killed under the handle's autocommit statement, handle dropped.
     */
    @Test
    void pgADroppedHandleWhoseBackendWasKilledUnderItIsCountedDown() throws Exception {
        LoomPoolDataSource ds = pg(2);
        killUnderStatementAndDrop(ds);
        assertThat(ds.getOpenHandles()).isEqualTo(1);
        boolean zero = gcWithin(Duration.ofSeconds(10), () -> ds.getOpenHandles() == 0);
        assertThat(zero).as("the dropped handle is counted down; getOpenHandles() = %s", ds.getOpenHandles()).isTrue();
    }

    private static void killUnderStatementAndDrop(LoomPoolDataSource ds) throws Exception {
        Connection c = ds.getConnection();
        long backend;
        try (Connection admin = TestDatabase.POSTGRES.admin()) {
            query(c, "SELECT 1");
            java.util.concurrent.CompletableFuture<Void> killer = java.util.concurrent.CompletableFuture.runAsync(() -> {
                try (java.sql.Statement st = admin.createStatement()) {
                    for (int i = 0; i < 500; i++) {
                        try (java.sql.ResultSet rs = st.executeQuery("SELECT pid FROM pg_stat_activity WHERE state = "
                                + "'active' AND query LIKE '%pg_sleep(3) AS atk2_marker%' AND pid <> pg_backend_pid()")) {
                            if (rs.next()) {
                                terminate(rs.getLong(1));
                                return;
                            }
                        }
                        LockSupport.parkNanos(10_000_000);
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            try {
                query(c, "SELECT pg_sleep(3) AS atk2_marker");
            } catch (SQLException expected) {
                // 57P01: terminated
            }
            killer.get(10, java.util.concurrent.TimeUnit.SECONDS);
        }
        // c dropped without close
    }
}
