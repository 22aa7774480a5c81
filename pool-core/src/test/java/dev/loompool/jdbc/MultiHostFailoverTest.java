package dev.loompool.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loompool.testsupport.PgCluster;
import dev.loompool.testsupport.Prerequisites;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * DESIGN.md §7, failover: a pgjdbc multi-host URL ({@code targetServerType=primary}) over a private
 * primary and its streaming standby. The primary stops, the standby is promoted, and the same pool,
 * never restarted, writes to the new primary: its broken connections cost at most one failed call
 * (the idle ones are checked at once), and every write it reported committed is there.
 */
class MultiHostFailoverTest {

    private static final String DB = "failover";
    private static final Duration OPEN = Duration.ofSeconds(2);

    @Test
    void theSamePoolWritesToThePromotedStandby() throws Exception {
        try (PgCluster primary = PgCluster.startWith(Prerequisites.postgresBinaries(), DB,
                "CREATE TABLE writes (id int PRIMARY KEY)"); PgCluster standby = primary.startStandbyCaughtUp()) {
            run(primary, standby);
        }
    }

    private static void run(PgCluster primary, PgCluster standby) throws Exception {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setPoolName("failover");
        ds.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + primary.port() + ",127.0.0.1:" + standby.port() + "/" + DB
                + "?user=postgres&targetServerType=primary&hostRecheckSeconds=1&connectTimeout=2");
        ds.setMinSize(4);
        ds.setMaxSize(4);
        ds.setAcquireTimeout(Duration.ofSeconds(3));
        ds.setCircuitBreakerFailureThreshold(3);
        ds.setCircuitBreakerOpenDuration(OPEN);
        Set<Integer> committed = new TreeSet<>();
        List<String> brokenConnectionErrors = new ArrayList<>();
        try (ds) {
            int id = 0;
            for (; id < 50; id++) { // every pooled connection has been used on the old primary
                assertEquals(primary.port(), write(ds, id));
                committed.add(id);
            }
            primary.stop();
            // A second with no primary at all: writes fail (the standby refuses targetServerType=primary),
            // the breaker opens, and no write lands anywhere.
            long gapEnd = System.nanoTime() + Duration.ofSeconds(1).toNanos();
            while (System.nanoTime() < gapEnd) {
                id++;
                try {
                    write(ds, id);
                    throw new AssertionError("a write succeeded with no primary up");
                } catch (SQLException e) {
                    if (!"08001".equals(e.getSQLState()) && !e.getMessage().contains("failing fast")) {
                        brokenConnectionErrors.add(e.getSQLState() + " " + e.getMessage());
                    }
                }
                Thread.sleep(20);
            }
            long stopped = System.nanoTime();
            standby.promote();
            long promoted = System.nanoTime();
            int port = -1;
            long deadline = promoted + OPEN.toNanos() + Duration.ofSeconds(15).toNanos();
            while (System.nanoTime() < deadline) {
                id++;
                try {
                    port = write(ds, id);
                    committed.add(id);
                    break;
                } catch (SQLException e) {
                    if (!"08001".equals(e.getSQLState()) && !e.getMessage().contains("failing fast")) {
                        brokenConnectionErrors.add(e.getSQLState() + " " + e.getMessage());
                    }
                    Thread.sleep(20);
                }
            }
            long recovered = System.nanoTime();
            System.out.printf("failover: the promotion took %d ms; the pool wrote to the new primary %d ms after it "
                    + "(breaker open duration %d ms); errors from broken connections: %s%n", (promoted - stopped) / 1_000_000,
                    (recovered - promoted) / 1_000_000, OPEN.toMillis(), brokenConnectionErrors);
            assertEquals(standby.port(), port, "the pool writes to the promoted standby, without a restart");
            assertTrue(brokenConnectionErrors.size() <= 1, "one call may meet a connection the stop broke; the idle "
                    + "ones are checked at once, not handed out one by one: " + brokenConnectionErrors);
            for (int i = 0; i < 20; i++) {
                id++;
                assertEquals(standby.port(), write(ds, id));
                committed.add(id);
            }
        }
        try (Connection c = standby.admin(DB); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id FROM writes ORDER BY id")) {
            Set<Integer> there = new TreeSet<>();
            while (rs.next()) {
                there.add(rs.getInt(1));
            }
            assertEquals(committed, there, "every write the pool reported committed is on the new primary");
        }
    }

    /** One write in a transaction; the port of the server it committed on. */
    private static int write(LoomPoolDataSource ds, int id) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            int port;
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO writes VALUES (?) RETURNING inet_server_port()")) {
                ps.setInt(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    port = rs.getInt(1);
                }
            }
            c.commit();
            return port;
        }
    }
}
