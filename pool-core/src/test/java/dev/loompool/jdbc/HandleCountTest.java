package dev.loompool.jdbc;

import static dev.loompool.jdbc.BindingTest.query;
import static dev.loompool.jdbc.ReclaimerWaits.awaitScans;
import static dev.loompool.jdbc.ReclaimerWaits.gcUntil;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code getOpenHandles()} (the {@code loompool.handles.open} gauge) counts a handle from its first
 * use of a connection until it is closed, reclaimed, or found dropped by the collector, so that it
 * never drifts from the handles really open (issue 11, item 6).
 */
class HandleCountTest extends StubSupport {

    @Test
    void handlesDroppedWhileUnboundAfterBindingOnceAreCountedDownOnceCollected() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        List<Connection> kept = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            Connection c = ds.getConnection();
            query(c, "SELECT " + i); // binds, gives the connection back, stays open
            if (i % 10 == 0) {
                kept.add(c);
            }
        }
        assertThat(ds.getOpenHandles()).isEqualTo(30);
        gcUntil("the 27 dropped handles are counted down", () -> ds.getOpenHandles() == kept.size());
        System.gc();
        awaitScans(3);
        assertThat(ds.getOpenHandles()).as("the handles still open stay counted").isEqualTo(3);
        for (Connection c : kept) {
            c.close();
        }
        assertThat(ds.getOpenHandles()).isZero();
        assertThat(ds.getReclaimedConnections()).as("nothing was bound: nothing to reclaim").isZero();
    }

    /** A handle is counted on the connection that served its first use: it stays counted after that connection goes. */
    @Test
    void aHandleStaysCountedAfterTheConnectionItWasCountedOnIsRetired() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        Connection c = ds.getConnection();
        query(c, "SELECT 1"); // counted on connection 1, which goes back
        assertThat(ds.getOpenHandles()).isEqualTo(1);
        ds.unwrap(LoomPoolDataSource.class).evictIdle(); // connection 1 is retired
        eventually("connection 1 is closed", () -> stub(1).isClosed());
        assertThat(ds.getOpenHandles()).as("still open, still counted").isEqualTo(1);
        try (Connection other = ds.getConnection()) {
            query(other, "SELECT 2");
            assertThat(ds.getOpenHandles()).isEqualTo(2);
        }
        c.close();
        assertThat(ds.getOpenHandles()).isZero();
    }

    @Test
    void handlesWhoseThreadEndedWhileUnboundAreCountedDownOnceCollected() throws Exception {
        LoomPoolDataSource ds = dataSource();
        List<Connection> kept = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            boolean keep = i % 3 == 0;
            threads.add(started(() -> {
                try {
                    Connection c = ds.getConnection();
                    query(c, "SELECT 1");
                    if (keep) {
                        kept.add(c); // outlives its thread, still open
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(ds.getOpenHandles()).isEqualTo(12);
        gcUntil("the 8 dropped handles are counted down", () -> ds.getOpenHandles() == kept.size());
        for (Connection c : kept) {
            query(c, "SELECT 2"); // still usable from here
            c.close();
        }
        assertThat(ds.getOpenHandles()).isZero();
    }

    @Test
    void handlesNeverBoundAreNotCounted() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        Connection used = ds.getConnection();
        query(used, "SELECT 1");
        for (int i = 0; i < 20; i++) {
            ds.getConnection(); // never used, dropped: holds nothing, so it is not counted
        }
        Connection unused = ds.getConnection();
        assertThat(ds.getOpenHandles()).isEqualTo(1);
        System.gc();
        awaitScans(3);
        assertThat(ds.getOpenHandles()).isEqualTo(1);
        query(unused, "SELECT 2");
        assertThat(ds.getOpenHandles()).as("counted from its first use").isEqualTo(2);
        used.close();
        unused.close();
        unused.close();
        assertThat(ds.getOpenHandles()).isZero();
    }

    @Test
    void aRandomWorkloadLeavesTheCountAtTheHandlesReallyOpen() throws Exception {
        LoomPoolDataSource ds = dataSource();
        ds.setMaxSize(8);
        List<Connection> kept = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger droppedBound = new AtomicInteger();
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        long end = System.nanoTime() + 2_000_000_000L;
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            threads.add(started(() -> {
                try {
                    while (System.nanoTime() < end) {
                        randomUse(ds, kept, droppedBound);
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(failures).isEmpty();
        gcUntil("the count is back to the handles really open", () -> ds.getOpenHandles() == kept.size()
                && ds.getPool().stats().inUse() == 0);
        synchronized (kept) {
            for (Connection c : kept) {
                c.close();
            }
        }
        assertThat(ds.getOpenHandles()).isZero();
        assertThat(ds.getReclaimedConnections()).isEqualTo(droppedBound.get());
    }

    private static Thread started(Runnable body) {
        Thread t = new Thread(body);
        t.start();
        return t;
    }

    /** One random use of a handle, left closed, dropped, or open; by this thread or one that ends. */
    private static void randomUse(LoomPoolDataSource ds, List<Connection> kept, AtomicInteger droppedBound)
            throws Exception {
        int r = ThreadLocalRandom.current().nextInt(100);
        if (r < 35) {
            try (Connection c = ds.getConnection()) {
                query(c, "SELECT 1");
            }
        } else if (r < 60) {
            query(ds.getConnection(), "SELECT 1"); // dropped unbound
        } else if (r < 70) {
            ds.getConnection(); // dropped, never bound
        } else if (r < 78) {
            Connection c = ds.getConnection();
            query(c, "SELECT 1");
            if (kept.size() < 40) {
                kept.add(c);
            } else {
                c.close();
            }
        } else if (r < 88) {
            Connection c = ds.getConnection();
            c.setAutoCommit(false);
            query(c, "INSERT 1");
            c.commit(); // dropped after its transaction: unbound
        } else if (r < 90 && droppedBound.get() < 3) {
            droppedBound.incrementAndGet();
            Connection c = ds.getConnection();
            c.setAutoCommit(false);
            query(c, "INSERT 2"); // dropped inside its transaction: reclaimed once collected
        } else {
            Thread t = started(() -> {
                try {
                    Connection c = ds.getConnection();
                    query(c, "SELECT 1");
                    if (ThreadLocalRandom.current().nextBoolean() && kept.size() < 40) {
                        kept.add(c); // outlives its thread
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            t.join();
        }
    }
}
