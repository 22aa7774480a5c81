package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/**
 * Threads of one handle wait: A holds the settings' turn and waits in the pool (setAutoCommit(false)
 * on an unbound handle), B waits for the turn (getAutoCommit), C waits for A's connection (a
 * statement). Then the handle, or the pool, ends. B and C end at once. A, in the pool's queue,
 * ends when the pool answers: at once when the pool closes; when a connection comes free (or at
 * its acquireTimeout) when only the handle ended, and then it puts that connection back.
 */
class HandleWaitersEndWhenTheHandleOrPoolEndsTest extends OnRealDatabases {

    interface Ender {
        void end(LoomPoolDataSource ds, Connection c, Connection d) throws Exception;
    }

    @Test
    void poolCloseEndsEveryWaiterOfAHandle() throws Exception {
        waiters((ds, c, d) -> ds.close(), 5_000, false);
    }

    @Test
    void abortOfTheHandleEndsItsWaiters() throws Exception {
        waiters((ds, c, d) -> c.abort(Executors.newSingleThreadExecutor()), 5_000, true);
    }

    @Test
    void closeOfTheHandleEndsItsWaiters() throws Exception {
        waiters((ds, c, d) -> c.close(), 5_000, true);
    }

    @Test
    void handleCloseThenTheConnectionComesFree() throws Exception {
        waiters((ds, c, d) -> {
            c.close();
            d.rollback();
            d.close();
        }, 5_000, false);
    }

    private void waiters(Ender ender, long boundMs, boolean aWaitsForThePool) throws Exception {
        LoomPoolDataSource ds = pg(1);
        ds.setAcquireTimeout(Duration.ofSeconds(20));
        Connection d = ds.getConnection();
        d.setAutoCommit(false);
        run(d, "SELECT 1");
        Connection c = ds.getConnection();
        Map<String, Object> outcome = new ConcurrentHashMap<>();
        List<Thread> ts = new ArrayList<>();
        ts.add(new Thread(() -> call(outcome, () -> c.setAutoCommit(false)), "A-turn-in-pool"));
        ts.add(new Thread(() -> call(outcome, () -> c.getAutoCommit()), "B-waits-turn"));
        ts.add(new Thread(() -> call(outcome, () -> run(c, "SELECT 1")), "C-waits-publish"));
        ts.get(0).start();
        InterruptedHandleWaitEndsTest.awaitPending(ds, 1);
        ts.get(1).start();
        ts.get(2).start();
        InterruptedHandleWaitEndsTest.awaitParked(ts.get(1));
        InterruptedHandleWaitEndsTest.awaitParked(ts.get(2));
        long t0 = System.nanoTime();
        ender.end(ds, c, d);
        List<Thread> ending = aWaitsForThePool ? ts.subList(1, 3) : ts;
        for (Thread t : ending) {
            t.join(Math.max(1, boundMs - (System.nanoTime() - t0) / 1_000_000));
        }
        long took = (System.nanoTime() - t0) / 1_000_000;
        try {
            if (aWaitsForThePool) {
                d.rollback();
                d.close(); // the pool answers A now
                ts.get(0).join(boundMs);
                assertThat(String.valueOf(outcome.get("A-turn-in-pool"))).as("A finds the handle closed").contains("closed");
            }
            for (Thread t : ts) {
                assertThat(t.isAlive()).as("%s still waits %d ms after the end (acquireTimeout 20 s); outcomes %s%n%s", t.getName(),
                        took, outcome, Arrays.toString(t.getStackTrace()).replace(",", "\n")).isFalse();
            }
        } finally {
            for (Thread t : ts) {
                t.join(60_000);
            }
            try {
                d.rollback();
            } catch (Exception ignored) {
            }
            d.close();
            c.close();
        }
        assertThat(ds.getPool().stats().inUse()).isZero();
    }

    interface Body {
        void run() throws Exception;
    }

    private static void call(Map<String, Object> outcome, Body b) {
        long t0 = System.nanoTime();
        try {
            b.run();
            outcome.put(Thread.currentThread().getName(), "ok after " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        } catch (Throwable e) {
            outcome.put(Thread.currentThread().getName(), (System.nanoTime() - t0) / 1_000_000 + " ms " + e);
        }
    }
}
