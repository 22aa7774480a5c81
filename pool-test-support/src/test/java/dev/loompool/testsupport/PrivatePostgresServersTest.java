package dev.loompool.testsupport;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The launchers do what issue 14's tests will lean on: a standby streams the primary's writes and
 * is writable once promoted, and a PgBouncer in transaction mode serves many clients on a few
 * server connections. Skipped without the programs, failed under CI=true (see {@link Prerequisites}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PrivatePostgresServersTest {

    /** The shared server of the other integration tests (.ci/run makes sure it answers). */
    private static final String SHARED_HOST = "127.0.0.1";
    private static final int SHARED_PORT = 5432;
    private static final String SHARED_DATABASE = "test";
    private static final Duration CATCH_UP = Duration.ofSeconds(10);

    @Test
    void aStandbyStreamsThePrimarysWritesAndIsWritableOncePromoted() throws Exception {
        Path bin = Prerequisites.postgresBinaries();
        try (PgCluster primary = PgCluster.start(bin)) {
            primary.createDatabase("replicated");
            execute(primary, "CREATE TABLE notes (id int PRIMARY KEY, note text)");
            execute(primary, "INSERT INTO notes VALUES (1, 'in the base backup')");
            try (PgCluster standby = primary.startStandby()) {
                // Written after the base backup: it can only reach the standby by streaming.
                execute(primary, "INSERT INTO notes VALUES (2, 'streamed')");
                primary.waitForStandby(standby, CATCH_UP);
                assertTrue(standby.inRecovery(), "pg_is_in_recovery() on the standby");
                assertEquals(List.of("in the base backup", "streamed"), notes(standby));
                assertEquals("25006", sqlState(() -> execute(standby, "INSERT INTO notes VALUES (3, 'refused')")),
                        "a write on the standby: read_only_sql_transaction (25006)");

                standby.promote();
                assertFalse(standby.inRecovery(), "pg_is_in_recovery() after promote()");
                execute(standby, "INSERT INTO notes VALUES (3, 'written on the promoted standby')");
                assertEquals(3, notes(standby).size());

                // PgBouncer in front of a private cluster as well as the shared server.
                try (PgBouncer bouncer = PgBouncer.start("127.0.0.1", standby.port(), "replicated", 1);
                        Connection c = DriverManager.getConnection(bouncer.jdbcUrl("prepareThreshold=0"));
                        Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT count(*) FROM notes")) {
                    rs.next();
                    assertEquals(3, rs.getInt(1), "the rows read through PgBouncer");
                }
            }
        }
    }

    @Test
    void pgBouncerRunsTwentyConcurrentTransactionsOnTwoServerConnections() throws Exception {
        Prerequisites.pgbouncer();
        int clients = 20;
        try (PgBouncer bouncer = PgBouncer.start(SHARED_HOST, SHARED_PORT, SHARED_DATABASE, 2)) {
            CyclicBarrier allConnected = new CyclicBarrier(clients);
            Set<Integer> backendPids = ConcurrentHashMap.newKeySet();
            AtomicInteger committed = new AtomicInteger();
            AtomicBoolean loadRunning = new AtomicBoolean(true);
            AtomicInteger maxServers = new AtomicInteger();
            AtomicInteger maxWaiting = new AtomicInteger();
            ExecutorService threads = Executors.newFixedThreadPool(clients + 1);
            try {
                Future<?> sampler = threads.submit(() -> {
                    while (loadRunning.get()) {
                        PgBouncer.Pool pool = bouncer.pool();
                        maxServers.accumulateAndGet(Math.max(pool.servers(), bouncer.serverConnections()), Math::max);
                        maxWaiting.accumulateAndGet(pool.clientsWaiting(), Math::max);
                        Thread.sleep(10);
                    }
                    return null;
                });
                List<Future<?>> load = new ArrayList<>();
                for (int i = 0; i < clients; i++) {
                    int client = i;
                    load.add(threads.submit(() -> {
                        try (Connection c = DriverManager.getConnection(bouncer.jdbcUrl("prepareThreshold=0"))) {
                            allConnected.await(20, TimeUnit.SECONDS);
                            c.setAutoCommit(false);
                            try (PreparedStatement ps = c.prepareStatement(
                                    "SELECT pg_backend_pid(), ?::int, pg_sleep(0.1)")) {
                                ps.setInt(1, client);
                                try (ResultSet rs = ps.executeQuery()) {
                                    rs.next();
                                    backendPids.add(rs.getInt(1));
                                    assertEquals(client, rs.getInt(2));
                                }
                            }
                            c.commit();
                            committed.incrementAndGet();
                        }
                        return null;
                    }));
                }
                for (Future<?> f : load) {
                    f.get(30, TimeUnit.SECONDS);
                }
                loadRunning.set(false);
                sampler.get(10, TimeUnit.SECONDS);
            } finally {
                loadRunning.set(false);
                threads.shutdownNow();
            }
            int serversAfter = bouncer.serverConnections();
            assertAll(
                    () -> assertEquals(clients, committed.get(), "transactions committed"),
                    () -> assertTrue(backendPids.size() <= 2, "server backends that ran them: " + backendPids),
                    () -> assertTrue(maxServers.get() >= 1 && maxServers.get() <= 2,
                            "server connections seen in SHOW POOLS/SHOW SERVERS: " + maxServers.get()),
                    () -> assertTrue(maxWaiting.get() > 0, "clients seen waiting for a server connection"),
                    () -> assertTrue(serversAfter <= 2, "server connections after the load: " + serversAfter));
        }
    }

    private static void execute(PgCluster cluster, String sql) throws SQLException {
        try (Connection c = cluster.admin("replicated"); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static List<String> notes(PgCluster cluster) throws SQLException {
        List<String> notes = new ArrayList<>();
        try (Connection c = cluster.admin("replicated"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT note FROM notes ORDER BY id")) {
            while (rs.next()) {
                notes.add(rs.getString(1));
            }
        }
        return notes;
    }

    private interface SqlAction {
        void run() throws SQLException;
    }

    /** The SQLState the action fails with; null if it does not fail. */
    private static String sqlState(SqlAction action) {
        try {
            action.run();
            return null;
        } catch (SQLException e) {
            return e.getSQLState();
        }
    }
}
