package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.CircuitBreakerState;
import dev.loompool.jdbc.internal.handle.Internals;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The JDBC layer against a real PostgreSQL (issue 3's list). */
class PostgresIntegrationTest {

    private final String table = "loompool_it_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final List<LoomPoolDataSource> dataSources = new ArrayList<>();

    LoomPoolDataSource dataSource(int maxSize) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(TestDatabase.POSTGRES.url());
        ds.setPoolName("pg-it");
        ds.setMinSize(0);
        ds.setMaxSize(maxSize);
        dataSources.add(ds);
        return ds;
    }

    @BeforeEach
    void createTable() throws SQLException {
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE " + table + " (id int PRIMARY KEY)");
        }
    }

    @AfterEach
    void dropTable() throws SQLException {
        dataSources.forEach(LoomPoolDataSource::close);
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + table);
        }
    }

    static long single(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static String text(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private long rows() throws SQLException {
        try (Connection c = TestDatabase.POSTGRES.admin()) {
            return single(c, "SELECT count(*) FROM " + table);
        }
    }

    @Test
    void aTransactionRunsOnOneBackendThatNoOtherHandleSeesUntilCommit() throws Exception {
        LoomPoolDataSource ds = dataSource(4);
        try (Connection tx = ds.getConnection()) {
            tx.setAutoCommit(false);
            long pid = single(tx, "SELECT pg_backend_pid()");
            try (PreparedStatement ps = tx.prepareStatement("INSERT INTO " + table + " VALUES (?)")) {
                ps.setInt(1, 1);
                ps.executeUpdate();
            }
            AtomicReference<List<Long>> seen = new AtomicReference<>(new ArrayList<>());
            Thread other = new Thread(() -> {
                try (Connection c = ds.getConnection()) {
                    for (int i = 0; i < 5; i++) {
                        seen.get().add(single(c, "SELECT pg_backend_pid()"));
                    }
                    seen.get().add(single(c, "SELECT count(*) FROM " + table));
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            other.start();
            other.join();
            assertThat(seen.get()).hasSize(6);
            assertThat(seen.get().subList(0, 5)).doesNotContain(pid);
            assertThat(seen.get().get(5)).as("uncommitted row seen by another handle").isZero();
            assertThat(single(tx, "SELECT pg_backend_pid()")).isEqualTo(pid);
            tx.commit();
        }
        assertThat(rows()).isEqualTo(1);
    }

    @Test
    void workLeftUncommittedAtCloseIsRolledBack() throws SQLException {
        LoomPoolDataSource ds = dataSource(2);
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            st.executeUpdate("INSERT INTO " + table + " VALUES (1)");
        }
        assertThat(rows()).isZero();
    }

    @Test
    void aRawSqlBeginPinsToo() throws SQLException {
        LoomPoolDataSource ds = dataSource(4);
        try (Connection c = ds.getConnection()) {
            try (Statement st = c.createStatement()) {
                st.execute("BEGIN");
            }
            long pid = single(c, PostgresPinSemanticsTest.BACKEND_PID); // pg_backend_pid() would pin until close
            try (Statement st = c.createStatement()) {
                st.executeUpdate("INSERT INTO " + table + " VALUES (1)");
            }
            assertThat(single(c, PostgresPinSemanticsTest.BACKEND_PID)).isEqualTo(pid);
            try (Statement st = c.createStatement()) {
                st.execute("ROLLBACK");
            }
            assertThat(c.unwrap(LoomConnection.class).isBound()).isFalse();
        }
        assertThat(rows()).isZero();
    }

    @Test
    void noSessionStateLeaksToTheNextBorrower() throws SQLException {
        LoomPoolDataSource ds = dataSource(1);
        long pid;
        String defaultPath;
        try (Connection c = ds.getConnection()) {
            defaultPath = text(c, "SHOW search_path");
        }
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA IF NOT EXISTS loompool_leak");
            st.execute("SET search_path TO loompool_leak");
            st.execute("SET application_name = 'leaky'");
            st.execute("CREATE TEMP TABLE leak_tmp (id int)");
            c.setReadOnly(true);
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            c.setSchema("pg_catalog");
            pid = single(c, "SELECT pg_backend_pid()");
            assertThat(c.isReadOnly()).isTrue(); // PgJDBC applies it per transaction (readOnlyMode=transaction)
        }
        try (Connection c = ds.getConnection()) {
            assertThat(single(c, "SELECT pg_backend_pid()")).as("the same backend, reset").isEqualTo(pid);
            assertThat(text(c, "SHOW search_path")).isEqualTo(defaultPath);
            assertThat(text(c, "SELECT current_setting('application_name')")).isNotEqualTo("leaky");
            assertThat(text(c, "SELECT coalesce(to_regclass('pg_temp.leak_tmp')::text, 'none')")).isEqualTo("none");
            assertThat(c.isReadOnly()).isFalse();
            assertThat(text(c, "SHOW transaction_read_only")).isEqualTo("off");
            assertThat(text(c, "SHOW transaction_isolation")).isEqualTo("read committed");
            assertThat(text(c, "SELECT current_schema()")).isEqualTo("public");
        }
    }

    @Test
    void withReclaimOnOwnerExitAThreadThatEndsInsideATransactionHasItRolledBackAndItsConnectionReturned()
            throws Exception {
        LoomPoolDataSource ds = dataSource(2);
        ds.setReclaimOnOwnerExit(true);
        Thread worker = new Thread(() -> {
            try {
                Connection c = ds.getConnection();
                c.setAutoCommit(false);
                try (Statement st = c.createStatement()) {
                    st.executeUpdate("INSERT INTO " + table + " VALUES (1)");
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        worker.start();
        worker.join();
        long ended = System.nanoTime();
        StubSupport.eventually("the connection is reclaimed", () -> ds.getPool().stats().inUse() == 0);
        long reclaimMillis = (System.nanoTime() - ended) / 1_000_000;
        System.out.println("reclaimed " + reclaimMillis + " ms after the owner thread ended");
        assertThat(rows()).isZero();
        assertThat(ds.getReclaimedConnections()).isEqualTo(1);
    }

    @Test
    void aTerminatedBackendFailsOneStatementAndTheNextRunsOnANewOne() throws SQLException {
        LoomPoolDataSource ds = dataSource(2);
        try (Connection c = ds.getConnection()) {
            long pid = single(c, "SELECT pg_backend_pid()");
            try (Connection admin = TestDatabase.POSTGRES.admin()) {
                single(admin, "SELECT count(*) FROM (SELECT pg_terminate_backend(" + pid + ")) t");
            }
            assertThatThrownBy(() -> single(c, "SELECT 1")).isInstanceOf(SQLException.class)
                    .satisfies(e -> assertThat(Internals.isBroken((SQLException) e)).isTrue());
            long next = single(c, "SELECT pg_backend_pid()");
            assertThat(next).isNotEqualTo(pid);
        }
        assertThat(ds.getPool().stats().total()).as("the dead connection was destroyed").isEqualTo(1);
    }

    @Test
    void badCredentialsOpenTheBreakerWhichFailsFastUntilRotationAndRecovery() throws SQLException {
        dev.loompool.ManualClockAccess clock = new dev.loompool.ManualClockAccess();
        LoomPoolDataSource ds = dataSource(2);
        ds.setJdbcUrl(TestDatabase.POSTGRES.url().replaceAll("[?&]user=[^&]*", ""));
        ds.setClock(clock);
        ds.setCircuitBreakerFailureThreshold(3);
        AtomicReference<String> user = new AtomicReference<>("loompool_nobody");
        AtomicInteger connects = new AtomicInteger();
        ds.setCredentialsSupplier(() -> {
            connects.incrementAndGet();
            return new Credentials(user.get(), "wrong");
        });
        try (Connection c = ds.getConnection()) {
            for (int i = 0; i < 3; i++) {
                assertThatThrownBy(() -> single(c, "SELECT 1")).isInstanceOf(SQLException.class)
                        .isNotInstanceOf(SQLTransientConnectionException.class)
                        .hasMessageContaining("loompool_nobody");
            }
            assertThat(ds.getPool().state()).isEqualTo(CircuitBreakerState.INACTIVE);
            for (int i = 0; i < 50; i++) {
                assertThatThrownBy(() -> single(c, "SELECT 1")).isInstanceOf(SQLTransientConnectionException.class);
            }
            assertThat(connects).as("connect attempts while open").hasValue(3);
            user.set("postgres");
            clock.advance(ds.getCircuitBreakerOpenDuration());
            assertThat(single(c, "SELECT 1")).isEqualTo(1);
            assertThat(ds.getPool().state()).isEqualTo(CircuitBreakerState.ACTIVE);
        }
    }

    @Test
    void anAcquireTimeoutNamesThePoolAndCounts() throws SQLException {
        LoomPoolDataSource ds = dataSource(1);
        ds.setMinSize(1); // connected at start: the holder's own connect must not race the 100 ms on a loaded host
        ds.setAcquireTimeout(Duration.ofMillis(100));
        try (Connection holder = ds.getConnection(); Connection other = ds.getConnection()) {
            holder.setAutoCommit(false);
            single(holder, "SELECT 1");
            assertThatThrownBy(() -> single(other, "SELECT 1")).isInstanceOf(SQLTransientConnectionException.class)
                    .hasMessageContaining("'pg-it'").hasMessageContaining("100 ms")
                    .hasMessageContaining("total=1, idle=0, inUse=1");
        }
    }
}
