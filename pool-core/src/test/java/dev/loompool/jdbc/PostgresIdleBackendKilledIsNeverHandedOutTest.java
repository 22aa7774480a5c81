package dev.loompool.jdbc;

import static dev.loompool.jdbc.PostgresBackendKiller.terminate;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A PostgreSQL backend killed while its connection is idle (DESIGN.md §4 "Broken connections": an
 * idle connection is validated before hand-out once idle longer than about 500 ms) is never handed
 * out once that window has passed, however coarse the return stamp.
 */
class PostgresIdleBackendKilledIsNeverHandedOutTest {

    private LoomPoolDataSource pg(int max) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(TestDatabase.POSTGRES.url());
        ds.setPoolName("atk2-pg-" + System.nanoTime());
        ds.setMinSize(0);
        ds.setMaxSize(max);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        pgPools.add(ds);
        return ds;
    }

    private final List<LoomPoolDataSource> pgPools = new ArrayList<>();

    @org.junit.jupiter.api.AfterEach
    void closePgPools() {
        pgPools.forEach(LoomPoolDataSource::close);
    }

    private static long pid(Connection c) throws SQLException {
        try (java.sql.Statement st = c.createStatement(); java.sql.ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * The coarse return stamp against a backend killed while idle: once the connection has been idle
     * for more than 500 ms by the precise clock, the hand-out validates it and the borrower gets a
     * live connection, every round. (Within 500 ms no validation is made by design, as HikariCP's
     * aliveBypassWindowMs; the coarse stamp can only make that window shorter.)
     */
    @Test
    void aBackendKilledWhileIdleIsNeverHandedOutAfterTheTrustWindow() throws Exception {
        LoomPoolDataSource ds = pg(1);
        for (int round = 0; round < 8; round++) {
            long before;
            try (Connection c = ds.getConnection()) {
                before = pid(c); // pins it explicitly (identity read): released at close
            }
            long returned = System.nanoTime();
            terminate(before);
            while (System.nanoTime() - returned < 520_000_000L) {
                LockSupport.parkNanos(5_000_000);
            }
            try (Connection c = ds.getConnection()) {
                assertThat(pid(c)).as("round %s: a fresh backend, validated and replaced", round).isNotEqualTo(before);
            }
        }
        assertThat(ds.getOpenHandles()).isZero();
    }
}
