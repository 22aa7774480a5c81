package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * From a review attack (issue 26): legitimate hand-offs between threads, each finished (joined, so
 * happens-before) before the close, now retire the physical connection at every close: one
 * reconnect per request. The plain driver, and the pool before, keep the connection.
 */
class HandOffReuseTest extends HostileSupport {

    private final ExecutorService worker = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopWorker() throws Exception {
        worker.shutdownNow();
        worker.awaitTermination(5, TimeUnit.SECONDS);
    }

    /**
     * The request thread borrows and begins the transaction, a worker runs the work and commits
     * ({@code runAsync(..., exec).join()}), the request thread closes. Nothing runs at the close.
     */
    @Test
    void aTransactionRunOnAWorkerAndJoinedBeforeTheCloseDoesNotCostTheConnection() throws Exception {
        pgTableForChurn();
        LoomPoolDataSource ds = pg(1);
        long first;
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            first = pgPidUnpinned(a);
            run(a, "SET search_path TO public"); // session state: the handle stays bound until its close
            worker.submit(() -> {
                run(a, "INSERT INTO " + table + " (v) VALUES (1)");
                a.commit();
                return null;
            }).get(10, TimeUnit.SECONDS);
        }
        long second;
        try (Connection b = ds.getConnection()) {
            second = pgPidUnpinned(b);
        }
        assertThat(second).as("the next borrower gets the same backend: the finished hand-off retired it").isEqualTo(first);
    }

    /**
     * The request thread does its transaction and commits; the close is handed to a cleanup
     * executor (a request-completion callback on another thread). Nothing runs at the close.
     */
    @Test
    void aCloseHandedToACleanupExecutorAfterTheCommitDoesNotCostTheConnection() throws Exception {
        pgTableForChurn();
        LoomPoolDataSource ds = pg(1);
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        long first = pgPidUnpinned(a);
        run(a, "SET search_path TO public"); // session state: the handle stays bound until its close
        run(a, "INSERT INTO " + table + " (v) VALUES (1)");
        a.commit();
        worker.submit(() -> {
            a.close();
            return null;
        }).get(10, TimeUnit.SECONDS);
        long second;
        try (Connection b = ds.getConnection()) {
            second = pgPidUnpinned(b);
        }
        assertThat(second).as("the next borrower gets the same backend: a close on a cleanup thread retired it").isEqualTo(first);
    }

    /** The same hand-off on MariaDB. */
    @Test
    void mariaDbATransactionRunOnAWorkerAndJoinedBeforeTheCloseDoesNotCostTheConnection() throws Exception {
        mariaTable();
        LoomPoolDataSource ds = maria(1);
        long first;
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            first = myIdUnpinned(a);
            run(a, "SET @tenant = 5"); // session state: the handle stays bound until its close
            worker.submit(() -> {
                run(a, "INSERT INTO " + table + " (v) VALUES (1)");
                a.commit();
                return null;
            }).get(10, TimeUnit.SECONDS);
        }
        long second;
        try (Connection b = ds.getConnection()) {
            second = myIdUnpinned(b);
        }
        assertThat(second).as("the next borrower gets the same connection: the finished hand-off retired it").isEqualTo(first);
    }

    /** Control: the same session SQL and transaction, closed on the thread that ran them, keeps the backend. */
    @Test
    void controlTheSameWorkClosedOnItsOwnThreadKeepsTheConnection() throws Exception {
        pgTableForChurn();
        LoomPoolDataSource ds = pg(1);
        long first;
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            first = pgPidUnpinned(a);
            run(a, "SET search_path TO public");
            run(a, "INSERT INTO " + table + " (v) VALUES (1)");
            a.commit();
        }
        long second;
        try (Connection b = ds.getConnection()) {
            second = pgPidUnpinned(b);
        }
        assertThat(second).isEqualTo(first);
    }

    private void pgTableForChurn() throws Exception {
        try (Connection c = TestDatabase.POSTGRES.admin()) {
            run(c, "CREATE TABLE " + table + " (id serial PRIMARY KEY, v int)");
        }
        pgCleanup.add("DROP TABLE IF EXISTS " + table);
    }
}
