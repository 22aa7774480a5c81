package dev.loompool.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loompool.CircuitBreakerState;
import dev.loompool.Pool;
import dev.loompool.testsupport.PgCluster;
import dev.loompool.testsupport.Prerequisites;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * DESIGN.md §7, read replicas, on a real streaming standby: a private primary cluster and a
 * {@code pg_basebackup} standby of it, each on its own port. Read-only work lands on the standby,
 * everything else on the primary, per unit of work; a standby that goes down does not stop reads.
 */
class ReplicaRoutingTest {

    private static final String DB = "replicas";
    private static PgCluster primary;
    private static PgCluster standby;

    @BeforeAll
    static void startClusters() throws Exception {
        primary = PgCluster.startWith(Prerequisites.postgresBinaries(), DB,
                "CREATE TABLE ledger (id int PRIMARY KEY, note text)", "INSERT INTO ledger VALUES (1, 'before the standby')");
        standby = primary.startStandbyCaughtUp();
    }

    @AfterAll
    static void stopClusters() {
        if (standby != null) {
            standby.close();
        }
        if (primary != null) {
            primary.close();
        }
    }

    private static LoomPoolDataSource pool(boolean fallback) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setPoolName("routing");
        ds.setJdbcUrl(primary.jdbcUrl(DB, ""));
        ds.setReplicas(List.of(standby.jdbcUrl(DB, "")));
        ds.setMinSize(1);
        ds.setMaxSize(4);
        ds.setReplicaFallbackToPrimary(fallback);
        ds.setAcquireTimeout(Duration.ofSeconds(5));
        ds.setCircuitBreakerOpenDuration(Duration.ofMillis(500));
        return ds;
    }

    /** Whether the statement ran on a server in recovery, and that server's port. */
    private static String where(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_is_in_recovery(), inet_server_port()")) {
            rs.next();
            return (rs.getBoolean(1) ? "standby:" : "primary:") + rs.getInt(2);
        }
    }

    @Test
    void readOnlyWorkLandsOnTheStandbyAndWritesOnThePrimaryPerUnitOfWork() throws Exception {
        String onStandby = "standby:" + standby.port();
        String onPrimary = "primary:" + primary.port();
        try (LoomPoolDataSource ds = pool(true); Connection c = ds.getConnection()) {
            assertEquals(onPrimary, where(c));
            c.setReadOnly(true);
            assertEquals(onStandby, where(c), "a read-only handle binds to the replica");
            // Spring's @Transactional(readOnly = true): read-only, then a transaction, on the replica throughout.
            c.setAutoCommit(false);
            assertEquals(onStandby, where(c));
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT note FROM ledger WHERE id = 1")) {
                assertTrue(rs.next());
                assertEquals("before the standby", rs.getString(1));
            }
            assertEquals(onStandby, where(c), "one transaction, one server");
            c.commit();
            c.setAutoCommit(true);
            c.setReadOnly(false);
            try (Statement s = c.createStatement()) { // the same handle's next unit of work writes: on the primary
                s.executeUpdate("INSERT INTO ledger VALUES (2, 'written through the handle')");
            }
            assertEquals(onPrimary, where(c));

            // A write in a read-only unit of work reaches the replica, which refuses it: never the primary.
            c.setReadOnly(true);
            try (Statement s = c.createStatement()) {
                SQLException e = assertThrows(SQLException.class,
                        () -> s.executeUpdate("INSERT INTO ledger VALUES (3, 'must not land')"));
                assertEquals("25006", e.getSQLState(), e.getMessage()); // read_only_sql_transaction
            }
            // Leaving read-only while a statement keeps the replica's connection: refused, not written there.
            c.setReadOnly(true);
            try (Statement open = c.createStatement(); ResultSet rs = open.executeQuery("SELECT 1")) {
                SQLException e = assertThrows(SQLException.class, () -> c.setReadOnly(false));
                assertTrue(e.getMessage().contains("routing-replica-1"), e.getMessage());
                assertTrue(c.isReadOnly(), "the handle stays read-only");
            }
            c.setReadOnly(false); // nothing holds the replica's connection now
            assertEquals(onPrimary, where(c));
            // A setReadOnly(true) the driver refuses (in the middle of a transaction) does not stand:
            // it must not send the next unit of work, a write, to the replica.
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO ledger VALUES (4, 'in a transaction')");
            }
            assertThrows(SQLException.class, () -> c.setReadOnly(true));
            c.commit();
            c.setAutoCommit(true);
            assertFalse(c.isReadOnly());
            assertEquals(onPrimary, where(c));
            try (Statement s = c.createStatement()) {
                s.executeUpdate("DELETE FROM ledger WHERE id = 4");
            }
            List<Pool<?>> replicas = ds.getReplicaPools();
            assertEquals(1, replicas.size());
            assertEquals("routing-replica-1", replicas.get(0).name());
            assertTrue(replicas.get(0).stats().total() >= 1, "the replica has its own pool");
        }
        try (Connection c = primary.admin(DB); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT array_agg(id ORDER BY id)::text FROM ledger")) {
            rs.next();
            assertEquals("{1,2}", rs.getString(1), "the write is on the primary, the refused one nowhere");
        }
    }

    @Test
    void aStandbyThatGoesDownDoesNotStopReads() throws Exception {
        try (LoomPoolDataSource ds = pool(true); Connection c = ds.getConnection()) {
            c.setReadOnly(true);
            assertEquals("standby:" + standby.port(), where(c));
            standby.stop();
            try {
                try {
                    where(c); // handed the idle connection the stop just broke: this one read may fail, as on any pool
                } catch (SQLException broken) {
                    assertTrue(broken.getSQLState().startsWith("08") || broken.getSQLState().equals("57P01"),
                            broken.getSQLState() + " " + broken.getMessage());
                }
                for (int i = 0; i < 20; i++) { // then connects fail, then the replica's breaker opens
                    assertEquals("primary:" + primary.port(), where(c), "read " + i + " falls back to the primary");
                }
                assertEquals(CircuitBreakerState.INACTIVE, ds.getReplicaPools().get(0).state(),
                        "the replica's own breaker opened; the primary's did not: " + ds.getPool().state());
                assertEquals(CircuitBreakerState.ACTIVE, ds.getPool().state());
            } finally {
                standby.start();
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            String at = where(c);
            while (!at.startsWith("standby") && System.nanoTime() < deadline) {
                Thread.sleep(100);
                at = where(c);
            }
            assertEquals("standby:" + standby.port(), at, "reads return to the replica once it is back");
        }
    }

    @Test
    void withoutFallbackADownReplicaFailsTheRead() throws Exception {
        try (LoomPoolDataSource ds = pool(false); Connection c = ds.getConnection()) {
            standby.stop();
            try {
                c.setReadOnly(true);
                SQLException e = assertThrows(SQLException.class, () -> where(c));
                assertFalse(e.getMessage().isEmpty());
                c.setReadOnly(false);
                assertEquals("primary:" + primary.port(), where(c), "writes are not affected");
            } finally {
                standby.start();
            }
        }
    }
}
