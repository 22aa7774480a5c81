package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/**
 * Handle state and reset on return: the settings a handle remembers (network timeout, catalog,
 * isolation, read-only) are replayed on the connection it binds, and the dirty ones are reset to the
 * pool's defaults when it lets go, so borrower B on the same physical connection gets the defaults.
 */
class HandleSettingsResetOnReturnTest extends OnRealDatabases {

    /** A's network timeout, set unbound and replayed, must not be left on the connection B gets. */
    @Test
    void networkTimeoutOfAIsNotLeftForBOnPostgres() throws Exception {
        LoomPoolDataSource ds = pg(1);
        ExecutorService ex = Executors.newSingleThreadExecutor();
        try {
            long pidA;
            try (Connection a = ds.getConnection()) {
                a.setNetworkTimeout(ex, 300);
                assertThat(a.getNetworkTimeout()).isEqualTo(300);
                pidA = pgPid(a); // replayed on this binding
            }
            try (Connection b = ds.getConnection()) {
                assertThat(b.getNetworkTimeout()).isZero();
                assertThat(pgPid(b)).isEqualTo(pidA); // the same physical connection
                run(b, "SELECT pg_sleep(0.7)"); // would fail on a 300 ms socket timeout
                assertThat(b.getNetworkTimeout()).isZero();
            }
        } finally {
            ex.shutdownNow();
        }
    }

    /** A's catalog, chosen unbound and replayed as USE, must not be where B's SQL runs. */
    @Test
    void catalogOfAIsNotLeftForBOnMariaDb() throws SQLException {
        String other = "loompool_sp_" + tag;
        mariaAdmin("CREATE DATABASE " + other);
        mariaCleanup.add("DROP DATABASE IF EXISTS " + other);
        LoomPoolDataSource ds = maria(1);
        try (Connection a = ds.getConnection()) {
            a.setCatalog(other);
            assertThat(a.getCatalog()).isEqualTo(other);
            assertThat(str(a, "SELECT DATABASE()")).isEqualTo(other);
            assertThat(a.getCatalog()).isEqualTo(other);
        }
        try (Connection b = ds.getConnection()) {
            assertThat(b.getCatalog()).isEqualTo("test");
            assertThat(str(b, "SELECT DATABASE()")).isEqualTo("test");
        }
    }

    /** Isolation chosen unbound: the getter and the server agree, and B gets the default back. */
    @Test
    void isolationChosenUnboundIsWhatTheTransactionRunsAtAndNotBsOnPostgres() throws SQLException {
        LoomPoolDataSource ds = pg(1);
        try (Connection a = ds.getConnection()) {
            a.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            assertThat(a.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_SERIALIZABLE);
            a.setAutoCommit(false);
            assertThat(str(a, "SHOW transaction_isolation")).isEqualTo("serializable");
            a.commit();
            assertThat(a.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_SERIALIZABLE);
        }
        try (Connection b = ds.getConnection()) {
            assertThat(b.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_READ_COMMITTED);
            b.setAutoCommit(false);
            assertThat(str(b, "SHOW transaction_isolation")).isEqualTo("read committed");
            b.rollback();
        }
    }

    /** readOnly + isolation + autocommit off, then transaction; B gets the defaults. */
    @Test
    void pgReadOnlyAndIsolationThenTransactionAreResetForB() throws SQLException {
        LoomPoolDataSource ds = pg(1);
        long pidA;
        try (Connection a = ds.getConnection()) {
            a.setReadOnly(true);
            a.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            a.setAutoCommit(false);
            pidA = pgPid(a);
            assertThat(str(a, "SHOW transaction_isolation")).isEqualTo("serializable");
            assertThat(str(a, "SHOW transaction_read_only")).isEqualTo("on");
            a.commit();
            a.setNetworkTimeout(Runnable::run, 1234);
            num(a, "SELECT 1");
        }
        try (Connection b = ds.getConnection()) {
            assertThat(pgPid(b)).isEqualTo(pidA);
            b.setAutoCommit(false);
            assertThat(str(b, "SHOW transaction_isolation")).isEqualTo("read committed");
            assertThat(str(b, "SHOW transaction_read_only")).isEqualTo("off");
            assertThat(b.getNetworkTimeout()).isZero();
            b.commit();
        }
    }
}
