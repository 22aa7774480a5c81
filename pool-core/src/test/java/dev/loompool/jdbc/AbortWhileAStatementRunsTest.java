package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A close from another thread (Connection.abort) while the handle's statement runs inside a
 * transaction: the transaction is rolled back, never committed, and the pool's connection is returned
 * exactly once.
 */
class AbortWhileAStatementRunsTest extends OnRealDatabases {

    /**
     * A aborts its handle from another thread while its statement runs inside a transaction: the
     * transaction is gone, the statement's thread gets an error, and the pool's one connection is
     * handed to exactly one next borrower (no double return).
     */
    @Test
    void abortWhileAStatementRunsLosesTheTransactionAndReturnsTheSlotOnceOnPostgres() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        ExecutorService ex = Executors.newCachedThreadPool();
        try {
            Connection a = ds.getConnection();
            a.setAutoCommit(false);
            run(a, "INSERT INTO " + table + " VALUES (1)");
            long pid = pgPid(a);
            CompletableFuture<String> sleeper = CompletableFuture.supplyAsync(() -> {
                try {
                    run(a, "SELECT pg_sleep(5)");
                    return "ran";
                } catch (SQLException e) {
                    return "failed";
                }
            }, ex);
            waitForSleep(pid);
            a.abort(ex);
            assertThat(sleeper.get(10, TimeUnit.SECONDS)).isEqualTo("failed");
            assertThat(a.isClosed()).isTrue();
            assertThatThrownBy(() -> run(a, "INSERT INTO " + table + " VALUES (2)")).isInstanceOf(SQLException.class);
            assertThatThrownBy(a::commit).isInstanceOf(SQLException.class);
            a.close();
            try (Connection b = ds.getConnection()) {
                b.setAutoCommit(false);
                long pidB = pgPid(b);
                ds.setAcquireTimeout(Duration.ofMillis(800)); // once B is connected: C's wait only
                assertThat(pidB).isNotEqualTo(pid);
                CompletableFuture<Long> c = CompletableFuture.supplyAsync(() -> {
                    try (Connection cc = ds.getConnection()) {
                        return pgPid(cc);
                    } catch (SQLException e) {
                        return -1L;
                    }
                }, ex);
                assertThat(c.get(5, TimeUnit.SECONDS)).as("a second borrower of a one-connection pool").isEqualTo(-1L);
                b.rollback();
            }
            assertThat(pgRows()).isZero();
        } finally {
            ex.shutdownNow();
        }
    }

    private static void waitForSleep(long pid) throws Exception {
        for (int i = 0; i < 200; i++) {
            try (Connection admin = TestDatabase.POSTGRES.admin()) {
                if (num(admin, "SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid
                        + " AND query LIKE 'SELECT pg_sleep%' AND state = 'active'") > 0) {
                    return;
                }
            }
            Thread.sleep(25);
        }
        throw new AssertionError("the statement never started");
    }
}
