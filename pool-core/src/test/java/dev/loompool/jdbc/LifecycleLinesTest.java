package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.ManualClockAccess;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The pools' DEBUG lifecycle lines (issue 40), like HikariCP's: a connection added, retired with
 * its reason, reset with what it undid, and the housekeeper's stats. Each test's pool has its own
 * logger, {@code dev.loompool.pool.<name>}, whose level it sets by slf4j-simple's system property
 * before the pool starts (the suite keeps them at INFO: simplelogger.properties).
 */
class LifecycleLinesTest extends StubSupport {

    private static final String PASSWORD = "pa55-lifecycle-secret";

    private final ManualClockAccess clock = new ManualClockAccess();

    /** A pool on the manual clock whose lifecycle lines are at {@code level}. */
    private LoomPoolDataSource pool(String level) {
        LoomPoolDataSource ds = dataSource();
        System.setProperty("org.slf4j.simpleLogger.log.dev.loompool.pool." + ds.getPoolName(), level);
        ds.setClock(clock);
        ds.setPassword(PASSWORD);
        ds.setHealthcheckInterval(Duration.ofMillis(5));
        return ds;
    }

    private static List<String> linesOf(LoomPoolDataSource ds, String log) {
        return log.lines().filter(l -> l.contains("pool '" + ds.getPoolName() + "'")).toList();
    }

    private static void dirty(LoomPoolDataSource ds) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            try (Statement st = c.createStatement()) {
                st.execute("INSERT INTO t VALUES (1)");
            }
        }
    }

    @Test
    void aConnectIsAnAddedLineWithItsTimeAndTheCounts() throws Exception {
        LoomPoolDataSource ds = pool("debug");
        String log = SecretLeaks.logOf(() -> {
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("SELECT 1");
            }
        });
        assertThat(linesOf(ds, log)).filteredOn(l -> l.contains("added connection #")).singleElement().satisfies(l ->
                assertThat(l).contains("DEBUG", "dev.loompool.pool." + ds.getPoolName(), "connected in ", " ms",
                        "total=1, idle=0, inUse=1, pending=0"));
        assertThat(log).doesNotContain(PASSWORD);
    }

    @Test
    void aReturnThatChangedSettingsIsAResetLineNamingWhatItUndid() throws Exception {
        LoomPoolDataSource ds = pool("debug");
        String log = SecretLeaks.logOf(() -> dirty(ds));
        assertThat(linesOf(ds, log)).filteredOn(l -> l.contains("reset connection #")).singleElement().satisfies(l ->
                assertThat(l).contains("on its return, undid: rollback; settings: auto_commit, isolation"));
    }

    @Test
    void maxLifetimeIsARetiredLineWithItsReasonAndTheHousekeeperLogsTheCounts() throws Exception {
        LoomPoolDataSource ds = pool("debug");
        ds.setMinSize(1);
        ds.setMaxLifetime(Duration.ofMinutes(30));
        String log;
        try (SecretLeaks.CapturedLog captured = SecretLeaks.CapturedLog.start()) {
            ds.start();
            clock.advance(Duration.ofMinutes(31));
            eventually("the old connection is retired and replaced, and a housekeeping run logged after that",
                    () -> stub(1).isClosed() && db.connects() >= 2 && ds.getPool().stats().total() == 1
                            && captured.text().contains("housekeeping ran"));
            log = captured.text();
        }
        List<String> lines = linesOf(ds, log);
        assertThat(lines).filteredOn(l -> l.contains("added connection #")).first().asString()
                .contains("(the pool is starting)");
        assertThat(lines).filteredOn(l -> l.contains("retired connection #")).singleElement().asString()
                .contains("after 1860 s: max lifetime reached (HEALTHCHECK_FAILED)");
        assertThat(lines).anySatisfy(l -> assertThat(l).containsPattern("housekeeping ran; before \\(total=1, idle=[01], "
                + "inUse=[01], pending=0, minSize=1, maxSize=4\\), after \\(total="));
        assertThat(log).doesNotContain(PASSWORD);
    }

    @Test
    void anEvictionIsARetiredLineThatSaysEvicted() throws Exception {
        LoomPoolDataSource ds = pool("debug");
        String log = SecretLeaks.logOf(() -> {
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("SELECT 1");
            }
            assertThat(ds.evictIdle()).isEqualTo(1);
            eventually("the idle connection is closed", () -> stub(1).isClosed());
        });
        assertThat(linesOf(ds, log)).filteredOn(l -> l.contains("retired connection #")).singleElement().asString()
                .contains(": evicted (");
    }

    @Test
    void anIdleTimeoutIsARetiredLineThatSaysSo() throws Exception {
        LoomPoolDataSource ds = pool("debug");
        ds.setIdleTimeout(Duration.ofMinutes(10));
        String log = SecretLeaks.logOf(() -> {
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("SELECT 1");
            }
            clock.advance(Duration.ofMinutes(11));
            eventually("the idle connection is closed", () -> stub(1).isClosed());
        });
        assertThat(linesOf(ds, log)).filteredOn(l -> l.contains("retired connection #")).singleElement().asString()
                .contains(": idle timeout (HEALTHCHECK_FAILED)");
    }

    @Test
    void withDebugOffNoLifecycleLineIsWritten() throws Exception {
        LoomPoolDataSource ds = pool("info");
        ds.setMinSize(1);
        ds.setMaxLifetime(Duration.ofMinutes(30));
        String log = SecretLeaks.logOf(() -> {
            ds.start();
            dirty(ds);
            clock.advance(Duration.ofMinutes(31));
            eventually("the old connection is retired and replaced", () -> stub(1).isClosed() && db.connects() >= 2);
            ds.evictIdle();
            LockSupportPause.millis(50); // a few housekeeping runs
        });
        assertThat(linesOf(ds, log)).noneMatch(l -> l.contains("added connection") || l.contains("retired connection")
                || l.contains("reset connection") || l.contains("housekeeping ran"));
    }

    /** A short real pause: the housekeeper runs on real time, the pool's clock is the manual one. */
    private static final class LockSupportPause {
        static void millis(long ms) {
            java.util.concurrent.locks.LockSupport.parkNanos(ms * 1_000_000);
        }
    }
}
