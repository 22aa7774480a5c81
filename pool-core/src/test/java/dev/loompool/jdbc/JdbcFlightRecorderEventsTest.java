package dev.loompool.jdbc;

import static dev.loompool.jdbc.BindingTest.query;
import static dev.loompool.jdbc.ReclaimSupport.PERIOD;
import static dev.loompool.jdbc.ReclaimerWaits.awaitScans;
import static dev.loompool.jdbc.ReclaimerWaits.gcUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.FlightEvents;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;

/**
 * The JDBC pool's Flight Recorder events (issue 30) on the stub database: {@code dev.loompool.Connect}
 * (a failure's password masked), {@code dev.loompool.Reset} (what the release check undid, kept or
 * retired) and {@code dev.loompool.Reclaim} (a dropped handle, an ended owner). The reset of a
 * real session (DISCARD ALL) is {@link PostgresFlightRecorderTest}'s.
 */
class JdbcFlightRecorderEventsTest extends StubSupport {

    static final String CONNECT = "dev.loompool.Connect";
    static final String RESET = "dev.loompool.Reset";
    static final String RECLAIM = "dev.loompool.Reclaim";
    private static final String SECRET = "jfr-s3cret-Pa55";

    private final ReclaimSupport reclaimer = new ReclaimSupport();

    @Test
    void aConnectIsRecordedAndAFailedOneWithItsSqlStateAndNoPassword() throws Exception {
        try (FlightEvents jfr = new FlightEvents(CONNECT)) {
            LoomPoolDataSource ds = dataSource();
            ds.setPassword(SECRET);
            db.failNextConnect(new SQLException("FATAL: password authentication failed for password " + SECRET, "28P01"));
            assertThatThrownBy(() -> {
                try (Connection c = ds.getConnection()) {
                    query(c, "SELECT 1"); // the handle binds, and so connects, at its first statement
                }
            }).isInstanceOf(SQLException.class).hasMessageNotContaining(SECRET);
            try (Connection c = ds.getConnection()) {
                query(c, "SELECT 1");
            }
            List<RecordedEvent> events = jfr.await(CONNECT, ds.getPoolName(), 2);
            RecordedEvent failed = events.get(0);
            assertThat(failed.getString("outcome")).isEqualTo("FAILED");
            assertThat(failed.getString("sqlState")).isEqualTo("28P01");
            assertThat(failed.getString("failureClass")).isEqualTo("java.sql.SQLException");
            assertThat(failed.getString("message")).startsWith("FATAL: password authentication failed")
                    .doesNotContain(SECRET);
            assertThat(failed.toString()).doesNotContain(SECRET);
            RecordedEvent ok = events.get(1);
            assertThat(ok.getString("outcome")).isEqualTo("OK");
            assertThat(ok.getString("sqlState")).isNull();
            assertThat(ok.getString("message")).isNull();
        }
    }

    @Test
    void aReturnThatUndoesSomethingIsRecordedWithWhatItRanAndOneThatUndoesNothingIsNot() throws Exception {
        try (FlightEvents jfr = new FlightEvents(RESET)) {
            LoomPoolDataSource ds = dataSource();
            ds.setMaxSize(1);
            try (Connection c = ds.getConnection()) {
                query(c, "SELECT 1"); // nothing to undo: no event
                c.setAutoCommit(false);
                query(c, "INSERT 1");
            } // rolled back on return
            try (Connection c = ds.getConnection()) {
                c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
                c.setReadOnly(true);
                query(c, "SELECT 2");
            } // the settings are put back
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("SET search_path TO app"); // session state, which the stub database cannot reset
            }
            List<String> resets = jfr.await(RESET, ds.getPoolName(), 3).stream()
                    .map(e -> e.getString("ran") + " -> " + e.getString("outcome")
                            + (e.getString("retiredBecause") == null ? "" : ": " + e.getString("retiredBecause")))
                    .toList();
            assertThat(resets).containsExactly(
                    "rollback; settings: auto_commit -> OK",
                    "settings: isolation, read_only -> OK",
                    "none (this database's sessions cannot be reset) -> RETIRED: session state cannot be reset on this database");
        }
    }

    @Test
    void aDroppedHandlesReclaimIsRecordedWithTheThreadThatRanItsSql() throws Exception {
        try (FlightEvents jfr = new FlightEvents(RECLAIM)) {
            LoomPoolDataSource ds = dataSource();
            openTransaction(ds); // dropped, never closed
            gcUntil("the dropped handle is collected and its connection reclaimed", () -> ds.getReclaimedConnections() == 1);
            RecordedEvent reclaim = jfr.await(RECLAIM, ds.getPoolName(), 1).get(0);
            assertThat(reclaim.getString("reason")).isEqualTo("HANDLE_DROPPED");
            assertThat(reclaim.getString("ownerThread")).isEqualTo(Thread.currentThread().getName());
            assertThat(reclaim.getDuration("boundFor")).isPositive();
            assertThat(reclaim.getInt("statementsClosed")).isZero();
            assertThat(reclaim.getThread().getJavaName()).startsWith("loompool-reclaimer-");
        }
    }

    @Test
    void anEndedOwnersReclaimIsRecordedWithItsNameAndHowLongItHeldTheConnection() throws Exception {
        try (FlightEvents jfr = new FlightEvents(RECLAIM)) {
            LoomPoolDataSource ds = reclaimer.reclaiming(dataSource());
            AtomicReference<String> owner = new AtomicReference<>();
            ReclaimTest.onThreadThatEnds(() -> {
                owner.set(Thread.currentThread().getName());
                Connection c = openTransaction(ds);
                c.createStatement(); // left open: the reclaim closes it
                return c;
            });
            awaitScans(3); // the housekeeper has seen the owner gone
            reclaimer.clock.advance(PERIOD);
            eventually("the connection is reclaimed", () -> ds.getReclaimedConnections() == 1);
            RecordedEvent reclaim = jfr.await(RECLAIM, ds.getPoolName(), 1).get(0);
            assertThat(reclaim.getString("reason")).isEqualTo("OWNER_ENDED");
            assertThat(reclaim.getString("ownerThread")).isEqualTo(owner.get());
            assertThat(reclaim.getDuration("boundFor")).as("on the pool's clock").isGreaterThanOrEqualTo(PERIOD);
            assertThat(reclaim.getInt("statementsClosed")).isEqualTo(1);
        }
    }

    private static Connection openTransaction(LoomPoolDataSource ds) throws SQLException {
        Connection c = ds.getConnection();
        c.setAutoCommit(false);
        query(c, "INSERT 1");
        return c;
    }

    @Test
    void theEventsOfAPoolUsedWithoutARecordingAreDisabled() throws Exception {
        LoomPoolDataSource ds = dataSource();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            query(c, "INSERT 1");
        }
        assertThat(jdk.jfr.FlightRecorder.getFlightRecorder().getEventTypes())
                .filteredOn(t -> t.getName().startsWith("dev.loompool."))
                .extracting(jdk.jfr.EventType::getName).contains(CONNECT, RESET);
        assertThat(jdk.jfr.FlightRecorder.getFlightRecorder().getEventTypes())
                .filteredOn(t -> t.getName().startsWith("dev.loompool.")).noneMatch(jdk.jfr.EventType::isEnabled);
    }
}
