package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A statement prepared on one thread while another thread closes the handle (issue 26, item 6), on
 * the real servers: the driver's prepare is held in a gate ({@link GateDriver}, in front of the real one)
 * until the handle is closed and B has its connection (maxSize 1). The statement must not stay live
 * on B's connection: MariaDB's {@code cancel()} kills whatever that connection runs, and the old code
 * ran {@code executeUpdate()} into a NullPointerException.
 */
class StatementCloseRaceTest {

    private final String table = "race_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private final List<LoomPoolDataSource> dss = new ArrayList<>();
    private final ExecutorService exec = Executors.newCachedThreadPool();
    private TestDatabase db;

    @AfterEach
    void drop() throws SQLException {
        GateDriver.gate = null;
        exec.shutdownNow();
        dss.forEach(LoomPoolDataSource::close);
        if (db != null) {
            try (Connection c = db.admin(); Statement st = c.createStatement()) {
                st.execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }

    static long single(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aStatementPreparedWhileAnotherThreadClosesTheHandleIsClosedAndCannotReachTheNextBorrower(TestDatabase database)
            throws Exception {
        db = database;
        try (Connection c = db.admin(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE " + table + " (id int PRIMARY KEY)");
        }
        LoomPoolDataSource ds = GateDriver.route(new LoomPoolDataSource(), db.url());
        ds.setPoolName("race");
        ds.setMinSize(0);
        ds.setMaxSize(1);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        dss.add(ds);
        boolean postgres = db == TestDatabase.POSTGRES;
        String marker = "sleep_" + table;
        String sleep = postgres ? "SELECT 0 FROM pg_sleep(1.5) WHERE '" + marker + "' <> ''"
                : "SELECT SLEEP(1.5) FROM DUAL WHERE '" + marker + "' <> ''";

        Connection a = ds.getConnection();
        GateDriver.Gate gate = GateDriver.armAfter("prepareStatement"); // the statement is made, not yet handed out
        Future<PreparedStatement> prepared = exec.submit(() -> a.prepareStatement("INSERT INTO " + table + " VALUES (1)"));
        gate.awaitArrival();
        a.close(); // while the other thread is inside the driver's prepareStatement

        try (Connection b = ds.getConnection()) { // A's physical connection (maxSize 1)
            b.setAutoCommit(false);
            try (Statement st = b.createStatement()) {
                st.executeUpdate("INSERT INTO " + table + " VALUES (2)");
            }
            Future<Long> bSleeps = exec.submit(() -> single(b, sleep));
            try (Connection admin = db.admin()) {
                String running = postgres
                        ? "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep%" + marker + "%' AND pid <> pg_backend_pid()"
                        : "SELECT count(*) FROM information_schema.processlist WHERE info LIKE '%SLEEP%" + marker + "%' AND id <> CONNECTION_ID()";
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (single(admin, running) == 0 && System.nanoTime() < end) {
                    Thread.sleep(10);
                }
            }
            gate.open().countDown();
            PreparedStatement ps = null;
            try {
                ps = prepared.get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(SQLException.class).hasMessageContaining("pool 'race'");
            }
            if (ps != null) { // the old code handed it out, live on B's connection
                PreparedStatement late = ps;
                assertThatThrownBy(late::cancel).as("cancel must not reach B's query").isInstanceOf(SQLException.class);
                assertThatThrownBy(late::executeUpdate).isInstanceOf(SQLException.class);
            }
            assertThat(bSleeps.get(10, TimeUnit.SECONDS)).as("B's query ran to its end, not cancelled").isZero();
            b.commit();
        }
        try (Connection c = db.admin()) {
            assertThat(single(c, "SELECT count(*) FROM " + table)).as("B's row only").isEqualTo(1);
            assertThat(single(c, "SELECT max(id) FROM " + table)).isEqualTo(2);
        }
    }
}
