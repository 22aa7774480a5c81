package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
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
class HandOffReuseTest extends OnRealDatabases {

    private final ExecutorService worker = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopWorker() throws Exception {
        worker.shutdownNow();
        worker.awaitTermination(5, TimeUnit.SECONDS);
    }

    /**
     * A borrows, begins, leaves session state (the handle stays bound until its close), hands its
     * insert and commit to the worker and waits for it; then A closes on its own thread. The next
     * borrower must get A's backend: the finished hand-off did not retire it.
     */
    private void assertATransactionJoinedFromTheWorkerKeepsTheBackend(LoomPoolDataSource ds, Backend backend,
            String sessionSql) throws Exception {
        long first;
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            first = backend.of(a);
            run(a, sessionSql);
            worker.submit(() -> {
                run(a, "INSERT INTO " + table + " (v) VALUES (1)");
                a.commit();
                return null;
            }).get(10, TimeUnit.SECONDS);
        }
        assertThat(nextBorrowersBackend(ds, backend))
                .as("the next borrower gets the same backend: the finished hand-off retired it").isEqualTo(first);
    }

    private static long nextBorrowersBackend(LoomPoolDataSource ds, Backend backend) throws SQLException {
        try (Connection b = ds.getConnection()) {
            return backend.of(b);
        }
    }

    /**
     * The request thread borrows and begins the transaction, a worker runs the work and commits
     * ({@code runAsync(..., exec).join()}), the request thread closes. Nothing runs at the close.
     */
    @Test
    void aTransactionRunOnAWorkerAndJoinedBeforeTheCloseDoesNotCostTheConnection() throws Exception {
        pgTableForChurn();
        assertATransactionJoinedFromTheWorkerKeepsTheBackend(pg(1), PlainQueries::pgPidUnpinned, "SET search_path TO public");
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
        assertThat(nextBorrowersBackend(ds, PlainQueries::pgPidUnpinned))
                .as("the next borrower gets the same backend: a close on a cleanup thread retired it").isEqualTo(first);
    }

    /** The same hand-off on MariaDB. */
    @Test
    void mariaDbATransactionRunOnAWorkerAndJoinedBeforeTheCloseDoesNotCostTheConnection() throws Exception {
        mariaTable();
        assertATransactionJoinedFromTheWorkerKeepsTheBackend(maria(1), PlainQueries::myIdUnpinned, "SET @tenant = 5");
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
        assertThat(nextBorrowersBackend(ds, PlainQueries::pgPidUnpinned)).isEqualTo(first);
    }

    private void pgTableForChurn() throws Exception {
        try (Connection c = TestDatabase.POSTGRES.admin()) {
            run(c, "CREATE TABLE " + table + " (id serial PRIMARY KEY, v int)");
        }
        pgCleanup.add("DROP TABLE IF EXISTS " + table);
    }
}
