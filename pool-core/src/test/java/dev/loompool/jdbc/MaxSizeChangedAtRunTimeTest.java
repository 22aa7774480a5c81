package dev.loompool.jdbc;

import static dev.loompool.jdbc.BindingTest.query;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * maxSize changed on a running pool (DESIGN.md §4 "Configuration": the sizes change at run time
 * through a named operation): raised, a waiter gets the new slot at once; lowered under load, the
 * borrowers keep working and the pool converges to the new maximum.
 */
class MaxSizeChangedAtRunTimeTest extends StubSupport {

    /** maxSize raised at run time while a borrower waits: the waiter gets the new slot at once. */
    @Test
    void raisingMaxSizeAtRunTimeServesAWaiterAtOnce() throws Exception {
        LoomPoolDataSource ds = dataSource();
        ds.setMaxSize(1);
        ds.setAcquireTimeout(Duration.ofSeconds(20));
        Connection holder = ds.getConnection();
        holder.setAutoCommit(false);
        query(holder, "SELECT 1"); // holds the only connection
        java.util.concurrent.CompletableFuture<Long> waited = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            long t0 = System.nanoTime();
            try (Connection c = ds.getConnection()) {
                query(c, "SELECT 2");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            return System.nanoTime() - t0;
        }, r -> new Thread(r, "waiter").start());
        eventually("the waiter waits", () -> ds.getPool().stats().pending() == 1);
        long raised = System.nanoTime();
        ds.setMaxSize(2);
        waited.get(15, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - raised)).as("served at once, not at the holder's release")
                .isLessThan(Duration.ofSeconds(3));
        holder.rollback();
        holder.close();
        assertThat(ds.getOpenHandles()).isZero();
    }

    /**
     * maxSize lowered at run time under load: borrowers keep working (no error), and once the load
     * stops the pool and the database hold at most the new maximum.
     */
    @Test
    void loweringMaxSizeUnderLoadConvergesWithoutErrors() throws Exception {
        LoomPoolDataSource ds = dataSource();
        ds.setMaxSize(6);
        ds.setAcquireTimeout(Duration.ofSeconds(20));
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < 8; w++) {
            workers.add(new Thread(() -> {
                try {
                    while (System.nanoTime() < end) {
                        try (Connection c = ds.getConnection()) {
                            c.setAutoCommit(false);
                            query(c, "SELECT 1");
                            LockSupport.parkNanos(1_000_000);
                            c.commit();
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        workers.forEach(Thread::start);
        LockSupport.parkNanos(Duration.ofMillis(1000).toNanos());
        ds.setMaxSize(2);
        for (Thread t : workers) {
            t.join();
        }
        assertThat(failures).isEmpty();
        eventually("the pool holds at most the new maximum", () -> ds.getPool().stats().total() <= 2 && db.open() <= 2);
        assertThat(ds.getOpenHandles()).isZero();
    }
}
