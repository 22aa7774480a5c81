package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.sql.Connection;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A thread of a handle waits while another thread of the same handle waits for a connection (in
 * awaitPublished for a statement, or for the settings' turn). It is interrupted. A thread
 * interrupted while it waits for a connection, on HikariCP or on loompool's own pool wait, ends at
 * once with an SQLException and keeps its interrupt; it neither waits out the other thread's
 * acquireTimeout nor spins a core meanwhile.
 */
class InterruptedHandleWaitEndsTest extends OnRealDatabases {

    interface Call {
        void on(Connection c) throws Exception;
    }

    @Test
    void interruptedWhileAnotherThreadOfTheHandleAcquiresForAStatement() throws Exception {
        interruptedWaiter(c -> run(c, "SELECT 1"), c -> run(c, "SELECT 1"));
    }

    @Test
    void interruptedWhileAnotherThreadHoldsTheSettingsTurn() throws Exception {
        interruptedWaiter(c -> c.setAutoCommit(false), c -> c.getAutoCommit());
    }

    private void interruptedWaiter(Call first, Call second) throws Exception {
        LoomPoolDataSource ds = pg(1);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        Connection d = ds.getConnection();
        d.setAutoCommit(false);
        run(d, "SELECT 1"); // D holds the pool's only connection
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        AtomicBoolean keptInterrupt = new AtomicBoolean();
        Connection c = ds.getConnection();
        Thread a = new Thread(() -> {
            try {
                first.on(c);
            } catch (Throwable e) {
                // times out after 10 s: not what this test looks at
            }
        }, "A-acquires");
        Thread b = new Thread(() -> {
            try {
                second.on(c);
            } catch (Throwable e) {
                errors.add(e);
            }
            keptInterrupt.set(Thread.currentThread().isInterrupted());
        }, "B-waits-for-A");
        try {
            a.start();
            awaitPending(ds, 1);
            b.start();
            awaitParked(b);
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            long cpu0 = mx.getThreadCpuTime(b.getId());
            long t0 = System.nanoTime();
            b.interrupt();
            b.join(8_000); // under the 10 s acquire timeout a broken wait lasts; HikariCP or loompool's own pool wait: an interrupted waiter ends at once
            long cpu = mx.getThreadCpuTime(b.getId()) - cpu0;
            long wall = System.nanoTime() - t0;
            String stack = Arrays.toString(b.getStackTrace()).replace(",", "\n");
            assertThat(b.isAlive()).as("B still waits %d ms after its interrupt (A's acquireTimeout: 10 s), having burnt %d ms of CPU%n%s",
                    wall / 1_000_000, cpu / 1_000_000, stack).isFalse();
            assertThat(errors).hasSize(1);
            assertThat(keptInterrupt).isTrue();
        } finally {
            b.join(30_000);
            d.rollback();
            d.close();
            a.join(30_000);
            c.close();
        }
        assertThat(ds.getPool().stats().inUse()).isZero();
    }

    static void awaitParked(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (t.getState() != Thread.State.TIMED_WAITING && t.getState() != Thread.State.WAITING
                && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        Thread.sleep(200); // parked for good, not between two spins
    }

    static void awaitPending(LoomPoolDataSource ds, int n) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (ds.getPool().stats().pending() < n && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(ds.getPool().stats().pending()).isEqualTo(n);
    }
}
