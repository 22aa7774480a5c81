package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * One handle, two threads, a pool of one whose connection another borrower D holds for a moment.
 * Thread Y begins a transaction on the handle (setAutoCommit(false): it binds now, so it waits for
 * D), and thread X asks the same handle for a statement (it waits for D too). D finishes. On the
 * plain driver (or HikariCP, a connection per handle) both calls return and X's statement runs in
 * the handle's transaction. So on loompool: one thread of the handle waits in the pool, the other
 * waits for it and goes on with the connection it bound. Before, the second waited in the pool
 * itself, for the connection its own handle held by then, and timed out.
 */
class TwoThreadsOfAHandleWaitForOneConnectionTest extends OnRealDatabases {

    @Test
    void secondThreadOfAHandleDoesNotWaitForTheConnectionItsOwnHandleHolds() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        try (Connection c = ds.getConnection()) {
            Connection d = ds.getConnection();
            d.setAutoCommit(false);
            run(d, "SELECT 1"); // D holds the pool's only connection
            Thread y = new Thread(() -> {
                try {
                    c.setAutoCommit(false); // begins: binds now, waits for D
                } catch (Throwable e) {
                    errors.add(e);
                }
            }, "Y-begin");
            y.start();
            awaitPending(ds, 1);
            Thread x = new Thread(() -> {
                try (Statement st = c.createStatement()) { // the same handle: waits for D too
                    st.execute("INSERT INTO " + table + " VALUES (1)");
                } catch (Throwable e) {
                    errors.add(e);
                }
            }, "X-statement");
            x.start();
            awaitParked(x); // waits for Y's connection (on the old code: in the pool, for one of its own)
            d.commit();
            d.close(); // the connection is free: the handle's two threads go on, as on the plain driver
            y.join(60_000);
            x.join(60_000);
            assertThat(errors).as("the plain driver raises nothing here").isEmpty();
            c.commit();
            c.setAutoCommit(true);
            LoomConnection h = c.unwrap(LoomConnection.class);
            assertThat(h.pinReasons()).isEmpty();
            assertThat(h.isBound()).isFalse();
        }
        assertThat(pgRows()).isEqualTo(1);
    }

    private static void awaitParked(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (t.getState() != Thread.State.TIMED_WAITING && t.getState() != Thread.State.WAITING
                && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        Thread.sleep(50); // parked for good, not between two spins
    }

    private static void awaitPending(LoomPoolDataSource ds, int n) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (ds.getPool().stats().pending() < n && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(ds.getPool().stats().pending()).isEqualTo(n);
    }
}
