package dev.loompool.jdbc;

import static dev.loompool.jdbc.BorrowerScenarios.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A watchdog's abort, or a close on another thread, on real PostgreSQL: during the owner's long
 * query, and while the owner waits for the pool's only connection. Nothing the owner did commits,
 * and nothing leaks (found by a review attack; the wait used to leave the connection bound to the
 * closed handle for good).
 */
class PostgresForeignEndTest {

    private final String table = "foreign_end_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private final List<LoomPoolDataSource> dss = new ArrayList<>();
    private final ExecutorService exec = Executors.newCachedThreadPool();

    LoomPoolDataSource ds(int max) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(TestDatabase.POSTGRES.url());
        ds.setPoolName("foreign-end");
        ds.setMinSize(0);
        ds.setMaxSize(max);
        ds.setAcquireTimeout(Duration.ofSeconds(20));
        dss.add(ds);
        return ds;
    }

    @BeforeEach
    void create() throws SQLException {
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE " + table + " (id int PRIMARY KEY)");
        }
    }

    @AfterEach
    void drop() throws SQLException {
        exec.shutdownNow();
        dss.forEach(LoomPoolDataSource::close);
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement st = c.createStatement()) {
            st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%" + table + "%' AND pid <> pg_backend_pid()");
            st.execute("DROP TABLE IF EXISTS " + table);
        }
    }

    static long single(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    long rows() throws SQLException {
        try (Connection c = TestDatabase.POSTGRES.admin()) {
            return single(c, "SELECT count(*) FROM " + table);
        }
    }

    boolean backendGone(long pid) {
        try (Connection c = TestDatabase.POSTGRES.admin()) {
            return single(c, "SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid) == 0;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Watchdog abort while the owner is blocked in pg_sleep(5) inside a transaction. */
    private void watchdogAbort(LoomPoolDataSource ds) throws Exception {
        Connection c = ds.getConnection();
        AtomicReference<Long> pid = new AtomicReference<>();
        AtomicReference<Throwable> ownerError = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Thread owner = new Thread(() -> {
            try {
                c.setAutoCommit(false);
                try (Statement st = c.createStatement()) {
                    st.executeUpdate("INSERT INTO " + table + " VALUES (1)");
                    pid.set(single(c, "SELECT pg_backend_pid()"));
                    started.countDown();
                    st.execute("SELECT pg_sleep(30) /* " + table + " */");
                    st.executeUpdate("INSERT INTO " + table + " VALUES (2)");
                }
                c.commit();
            } catch (Throwable e) {
                ownerError.set(e);
            } finally {
                try { c.close(); } catch (SQLException ignored) { }
            }
        }, "owner");
        owner.start();
        started.await();
        eventually("owner in pg_sleep", () -> BorrowerScenarios.sleeping(TestDatabase.POSTGRES, pid.get()));
        c.abort(exec);
        owner.join(20_000);
        assertThat(owner.isAlive()).as("the abort ended the owner's 30 s query").isFalse();
        assertThat(c.isClosed()).isTrue();
        eventually("inUse 0", () -> ds.getPool().stats().inUse() == 0);
        assertThat(ds.getOpenHandles()).isZero();
        // The server notices the closed socket only when pg_sleep returns: its backend may linger until then.
        assertThat(rows()).isZero();
        try (Connection n = ds.getConnection()) {
            assertThat(single(n, "SELECT pg_backend_pid()")).isNotEqualTo(pid.get());
        }
        assertThat(ds.getPool().stats().inUse()).isZero();
        assertThat(ownerError.get()).as("the owner gets the driver's SQLException").isInstanceOf(SQLException.class);
    }

    @Test
    void watchdogAbortDuringPgSleepKillsItAndNothingCommits() throws Exception {
        watchdogAbort(ds(1));
    }

    /**
     * A watchdog aborts (or closes) the handle while its owner waits in acquire for a connection
     * (pool of 1 held by B). The owner's statement was issued before the abort.
     */
    private void endWhileOwnerWaitsForAConnection(boolean abort) throws Exception {
        LoomPoolDataSource ds = ds(1);
        Connection b = ds.getConnection();
        b.setAutoCommit(false);
        single(b, "SELECT 1");
        Connection a = ds.getConnection();
        AtomicReference<Throwable> aErr = new AtomicReference<>();
        Thread owner = new Thread(() -> {
            try (Statement st = a.createStatement()) {
                a.setAutoCommit(false); // the transaction begins: it waits here for B's connection
                st.executeUpdate("INSERT INTO " + table + " VALUES (1)");
                a.commit();
            } catch (Throwable e) {
                aErr.set(e);
                try { a.rollback(); } catch (SQLException ignored) { }
            } finally {
                try { a.close(); } catch (SQLException ignored) { }
            }
        }, "owner-A");
        owner.start();
        eventually("A waits in acquire", () -> owner.getState() == Thread.State.TIMED_WAITING || owner.getState() == Thread.State.WAITING);
        Thread.sleep(100);
        if (abort) {
            a.abort(exec);
        } else {
            a.close();
        }
        b.rollback();
        b.close();
        owner.join(10_000);
        assertThat(owner.isAlive()).isFalse();
        assertThat(aErr.get()).as("A's statement was refused").isInstanceOf(SQLException.class);
        eventually("inUse 0 after everything closed (got " + ds.getPool().stats() + ", open handles " + ds.getOpenHandles() + ")",
                () -> ds.getPool().stats().inUse() == 0);
        assertThat(ds.getOpenHandles()).isZero();
        assertThat(rows()).isZero();
    }

    @Test
    void abortWhileOwnerWaitsForAConnection() throws Exception {
        endWhileOwnerWaitsForAConnection(true);
    }

    @Test
    void foreignCloseWhileOwnerWaitsForAConnection() throws Exception {
        endWhileOwnerWaitsForAConnection(false);
    }
}
