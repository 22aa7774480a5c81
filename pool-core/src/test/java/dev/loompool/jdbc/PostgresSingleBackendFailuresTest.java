package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.CircuitBreakerState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One dead connection says nothing about the database (DESIGN.md §3: only evidence that the
 * backend is unreachable opens the circuit). Five in a row, with the default threshold of five,
 * used to shut a healthy PostgreSQL out: terminated backends, a user's aborts, sessions killed by
 * {@code idle_in_transaction_session_timeout}. Borrower A loses its connection; borrower B must
 * still be served, and what A did must not have been committed.
 */
class PostgresSingleBackendFailuresTest {

    private final List<LoomPoolDataSource> dataSources = new ArrayList<>();

    private LoomPoolDataSource dataSource() {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(TestDatabase.POSTGRES.url());
        ds.setPoolName("pg-single-failures");
        ds.setMinSize(0);
        ds.setMaxSize(10);
        dataSources.add(ds);
        return ds;
    }

    @AfterEach
    void close() {
        dataSources.forEach(LoomPoolDataSource::close);
    }

    private static void assertServed(LoomPoolDataSource ds) throws SQLException {
        assertThat(ds.getPool().state()).as("the database accepts connections").isEqualTo(CircuitBreakerState.ACTIVE);
        try (Connection b = ds.getConnection()) {
            assertThat(PostgresIntegrationTest.single(b, "SELECT 1")).isEqualTo(1);
        }
    }

    private static void awaitGone(long pid) throws Exception {
        try (Connection admin = TestDatabase.POSTGRES.admin();
                PreparedStatement alive = admin.prepareStatement("SELECT count(*) FROM pg_stat_activity WHERE pid = ?")) {
            alive.setInt(1, (int) pid);
            for (long deadline = System.nanoTime() + 30_000_000_000L; System.nanoTime() < deadline; Thread.sleep(20)) {
                try (var rs = alive.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) == 0) {
                        return;
                    }
                }
            }
            throw new AssertionError("backend " + pid + " outlived its idle_in_transaction_session_timeout");
        }
    }

    @Test
    void fiveTerminatedBackendsDoNotOpenTheBreaker() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        List<Connection> handles = new ArrayList<>();
        List<Long> pids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Connection a = ds.getConnection();
            a.setAutoCommit(false);
            pids.add(PostgresIntegrationTest.single(a, "SELECT pg_backend_pid()"));
            handles.add(a);
        }
        try (Connection admin = TestDatabase.POSTGRES.admin();
                PreparedStatement kill = admin.prepareStatement("SELECT pg_terminate_backend(?)")) {
            for (long pid : pids) { // our own backends only
                kill.setInt(1, (int) pid);
                kill.execute();
            }
        }
        for (Connection a : handles) {
            assertThatThrownBy(() -> PostgresIntegrationTest.single(a, "SELECT 1")).isInstanceOf(SQLException.class);
            a.rollback();
            a.close();
        }
        assertServed(ds);
    }

    @Test
    void fiveAbortsDoNotOpenTheBreaker() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        for (int i = 0; i < 5; i++) {
            Connection a = ds.getConnection();
            a.setAutoCommit(false);
            PostgresIntegrationTest.single(a, "SELECT 1");
            a.abort(Runnable::run); // a watchdog cancelling stuck work
        }
        assertServed(ds);
        assertThat(ds.getPool().stats().inUse()).isZero();
    }

    @Test
    void fiveIdleInTransactionTimeoutsDoNotOpenTheBreaker() throws Exception {
        LoomPoolDataSource ds = dataSource();
        for (int i = 0; i < 5; i++) {
            Connection a = ds.getConnection();
            a.setAutoCommit(false);
            long pid = PostgresIntegrationTest.single(a, "SELECT pg_backend_pid()");
            PostgresIntegrationTest.single(a, "SELECT count(*) FROM (SELECT set_config("
                    + "'idle_in_transaction_session_timeout', '50', true)) s");
            awaitGone(pid); // the server ends the session: FATAL 25P03
            assertThatThrownBy(() -> PostgresIntegrationTest.single(a, "SELECT 1")).isInstanceOf(SQLException.class);
            a.rollback();
            a.close();
        }
        assertServed(ds);
    }
}
