package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * A pool of one whose connection another borrower D holds; eight threads share one handle and each
 * runs a statement. Each of them waits for a connection, one in the pool, the others for that one
 * (awaitPublished). On HikariCP (a connection each) every waiter fails after one
 * connectionTimeout. So on loompool every thread of the handle must fail within about one
 * acquireTimeout, not one after the other, each starting its own full wait after the previous
 * failed (the last one then fails after eight of them).
 */
class HandleWaitsEndWithinTheAcquireTimeoutTest extends OnRealDatabases {

    static final int THREADS = 8;

    interface Call {
        void on(Connection c) throws Exception;
    }

    @Test
    void everyThreadOfAHandleFailsWithinAboutOneAcquireTimeout() throws Exception {
        everyThreadFails(c -> run(c, "SELECT 1"));
    }

    /** The same through the settings' turn: eight threads begin a transaction on one unbound handle. */
    @Test
    void everyThreadBeginningATransactionOnAHandleFailsWithinAboutOneAcquireTimeout() throws Exception {
        everyThreadFails(c -> c.setAutoCommit(false));
    }

    private void everyThreadFails(Call call) throws Exception {
        LoomPoolDataSource ds = pg(1);
        ds.setAcquireTimeout(Duration.ofSeconds(5)); // eight in a row took 40 s; the 20 s bound leaves a loaded host its slack
        Connection d = ds.getConnection();
        d.setAutoCommit(false);
        run(d, "SELECT 1"); // D holds the pool's only connection
        Map<String, Throwable> outcome = new ConcurrentHashMap<>();
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        try (Connection c = ds.getConnection()) {
            for (int i = 0; i < THREADS; i++) {
                Thread t = new Thread(() -> {
                    try {
                        call.on(c);
                        outcome.put(Thread.currentThread().getName(), new AssertionError("ran without a connection"));
                    } catch (Throwable e) {
                        outcome.put(Thread.currentThread().getName(), e);
                    }
                }, "handle-thread-" + i);
                threads.add(t);
                t.start();
            }
            // acquireTimeout 1 s: within about 2 s everybody has its answer (5 s is generous)
            for (Thread t : threads) {
                t.join(Math.max(1, 20_000 - (System.nanoTime() - start) / 1_000_000));
            }
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            for (Thread t : threads) {
                assertThat(t.isAlive()).as("%s still waits %d ms after the start (acquireTimeout 5 s), answered so far: %d of %d%n%s",
                        t.getName(), tookMs, outcome.size(), THREADS, Arrays.toString(t.getStackTrace()).replace(",", "\n")).isFalse();
            }
            for (Throwable e : outcome.values()) {
                assertThat(e).isInstanceOf(SQLTransientConnectionException.class).hasMessageContaining("hostile-postgres");
            }
        } finally {
            for (Thread t : threads) {
                t.join(60_000);
            }
            d.rollback();
            d.close();
        }
        assertThat(ds.getPool().stats().inUse()).isZero();
    }

    /** HikariCP, the reference: eight waiters of an exhausted pool of one all fail after one connectionTimeout. */
    @Test
    void hikariWaitersEachFailAfterOneTimeout() throws Exception {
        com.zaxxer.hikari.HikariConfig cfg = new com.zaxxer.hikari.HikariConfig();
        cfg.setJdbcUrl(TestDatabase.POSTGRES.url());
        cfg.setMaximumPoolSize(1);
        cfg.setMinimumIdle(0);
        cfg.setConnectionTimeout(5_000);
        cfg.setPoolName("reference-hikari");
        HikariDataSource ds = new HikariDataSource(cfg);
        extras.add(ds);
        Connection d = ds.getConnection();
        Map<String, Throwable> outcome = new ConcurrentHashMap<>();
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < THREADS; i++) {
            Thread t = new Thread(() -> {
                try (Connection c = ds.getConnection()) {
                    run(c, "SELECT 1");
                } catch (Throwable e) {
                    outcome.put(Thread.currentThread().getName(), e);
                }
            }, "hikari-thread-" + i);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join(Math.max(1, 20_000 - (System.nanoTime() - start) / 1_000_000));
            assertThat(t.isAlive()).isFalse();
        }
        assertThat(outcome).hasSize(THREADS);
        d.close();
    }
}
