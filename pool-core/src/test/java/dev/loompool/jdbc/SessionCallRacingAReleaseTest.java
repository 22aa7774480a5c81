package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.ThreadedBorrowerScenarios.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static dev.loompool.jdbc.HandleAcrossThreadsTest.boundOnlyForAReason;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A session call (setClientInfo, a metadata call) on one thread while another thread's statement
 * ends A's last pin (DESIGN.md §4 "One state machine, every thread", "Session-state pin"): the call
 * never lands in the next borrower's session, nor runs on B's connection. The plain driver is the
 * reference.
 */
class SessionCallRacingAReleaseTest extends OnRealDatabases {

    // ---- setClientInfo: a connection call with session effect, not counted as a run ----------------

    /**
     * FINDING. Thread "owner-A" calls {@code a.setClientInfo("ApplicationName", …)}: it binds
     * (the handle is bound already: a statement is open) and is stopped before the driver (the gate
     * widens the moment a thread waits there for pgjdbc's lock behind another thread's statement).
     * The caller closes its statement: nothing pins any more, the connection goes back. B borrows
     * it. A's call goes on: its {@code SET application_name} lands in B's session, and then A's
     * thread gets a NullPointerException (SessionCalls.sessionChanged reads h.physical, now null).
     * Plain driver: A's setClientInfo changes A's own session; B's connection keeps its own name.
     */
    @Test
    void pgSetClientInfoOvertakenByAStatementCloseOnAnotherThreadLandsInBsSession() throws Exception {
        LoomPoolDataSource ds = gated(pg(1));
        Connection a = ds.getConnection();
        Statement st = a.createStatement(); // binds; the statement pins
        String fresh;
        try (ResultSet rs = st.executeQuery("SELECT current_setting('application_name')")) {
            rs.next();
            fresh = rs.getString(1);
        }
        GateDriver.Held held = GateDriver.hold("setClientInfo", () -> a.setClientInfo("ApplicationName", "A-" + tag));
        st.close(); // the caller ends the only pin while owner-A's call is on its way to the connection
        LoomConnection h = a.unwrap(LoomConnection.class);
        assertThat(h.isBound()).as("the connection stays with A while A's call runs").isTrue();
        assertThat(h.pinReasons()).as("and says why").contains(PinReason.STATEMENT);
        held.release();
        assertThat(held.failure().get()).as("owner-A's setClientInfo (%s)", held.outcome()).isNull();
        boundOnlyForAReason(a);
        assertThat(h.pinReasons()).as("A's session carries its name: pinned").contains(PinReason.SESSION_STATE);
        a.close(); // the reset takes A's name off the session
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, "SHOW application_name")).as("B's session name after A's setClientInfo").isEqualTo(fresh);
        }
    }

    /**
     * FINDING, on the real driver without a gate: owner-A's setClientInfo waits for pgjdbc's lock
     * behind the helper's pg_sleep; the caller closes the helper's statement meanwhile (the release
     * is deferred to the end of the run); B waits for the pool's one connection. The run ends, the
     * connection goes back, and A's {@code SET application_name} (first in line for the driver's
     * lock) may land after the release: then A's thread gets a NullPointerException and the name
     * is on the pooled session. A race between the helper's release and A's round trip: it fails
     * only when the bug shows (seen in about half the runs here); never on correct code.
     */
    @Test
    void pgSetClientInfoWaitingBehindAnotherThreadsStatementLandsInBsSession() throws Exception {
        LoomPoolDataSource ds = pg(1);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        String fresh;
        try (Connection c = ds.getConnection()) {
            fresh = str(c, "SHOW application_name");
        }
        Connection a = ds.getConnection();
        Statement st = a.createStatement();
        AtomicReference<Throwable> helperFailed = new AtomicReference<>();
        AtomicReference<Throwable> infoFailed = new AtomicReference<>();
        Thread helper = other("helper", () -> st.executeQuery(sleep(TestDatabase.POSTGRES, 2)).close(), helperFailed);
        awaitRunning(TestDatabase.POSTGRES, "pg_sleep(2)");
        Thread info = other("info", () -> a.setClientInfo("ApplicationName", "A-" + tag), infoFailed);
        Thread.sleep(300); // "info" is bound and waits for pgjdbc's lock, held by the helper's query
        st.close(); // deferred: the helper's run still goes on
        helper.join(15_000);
        info.join(15_000);
        try {
            assertThat(infoFailed.get()).as("A's setClientInfo: only an SQLException may escape")
                    .matches(t -> t == null || t instanceof SQLException);
            boundOnlyForAReason(a);
            LoomConnection h = a.unwrap(LoomConnection.class);
            if (!h.isBound()) { // the release won the race: what does the next borrower see?
                try (Connection b = ds.getConnection()) {
                    assertThat(str(b, "SHOW application_name")).as("B's application_name").isEqualTo(fresh);
                }
            } else {
                assertThat(h.pinReasons()).contains(PinReason.SESSION_STATE);
            }
        } finally {
            a.close();
        }
    }

    /**
     * FINDING (no data lost; a connection used by two borrowers at once): a metadata call on
     * "meta" waits for pgjdbc's lock behind the helper's statement; the caller closes that statement,
     * so the connection goes back when the helper's run ends and B takes it; A's metadata query then
     * runs on B's connection, and its result set is tracked on A's handle, which holds no connection.
     */
    @Test
    void pgMetadataCallWaitingBehindAnotherThreadsStatementRunsOnBsConnection() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        Connection a = ds.getConnection();
        Statement st = a.createStatement();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread helper = other("helper", () -> st.executeQuery(sleep(TestDatabase.POSTGRES, 2)).close(), new AtomicReference<>());
        awaitRunning(TestDatabase.POSTGRES, "pg_sleep(2)");
        AtomicReference<Boolean> boundWhenItReturned = new AtomicReference<>();
        AtomicReference<Boolean> bHeldItThen = new AtomicReference<>();
        CountDownLatch bHolds = new CountDownLatch(1);
        CountDownLatch bMayGo = new CountDownLatch(1);
        Thread b = other("B", () -> {
            try (Connection c = ds.getConnection()) {
                run(c, "SELECT 1");
                bHolds.countDown();
                bMayGo.await(15, TimeUnit.SECONDS);
            }
        }, new AtomicReference<>());
        Thread meta = other("meta", () -> {
            try (ResultSet rs = a.getMetaData().getTables(null, null, table, null)) {
                bHeldItThen.set(bHolds.getCount() == 0);
                LoomConnection h = a.unwrap(LoomConnection.class);
                boundWhenItReturned.set(h.isBound());
                System.out.println("PROBE meta returned: A bound=" + h.isBound() + " reasons=" + h.pinReasons()
                        + " pool=" + ds.getPool().stats());
                while (rs.next()) {
                    // read
                }
            }
        }, failure);
        Thread.sleep(300); // "meta" waits for pgjdbc's lock behind the helper's query
        st.close(); // deferred to the end of the helper's run
        helper.join(15_000);
        meta.join(15_000);
        bMayGo.countDown();
        b.join(15_000);
        try {
            org.assertj.core.api.SoftAssertions soft = new org.assertj.core.api.SoftAssertions();
            soft.assertThat(failure.get()).isNull();
            soft.assertThat(boundWhenItReturned.get()).as("A's metadata result set is open: its handle holds a connection")
                    .isTrue();
            soft.assertAll();
        } finally {
            a.close();
        }
    }

    /** Plain driver reference for the setClientInfo probes: a name set on one connection never reaches another. */
    @Test
    void plainDriverSetClientInfoStaysOnItsOwnSession() throws Exception {
        try (Connection a = DriverManager.getConnection(TestDatabase.POSTGRES.url());
                Connection b = DriverManager.getConnection(TestDatabase.POSTGRES.url())) {
            String fresh = str(b, "SHOW application_name");
            a.setClientInfo("ApplicationName", "A-" + tag);
            assertThat(str(b, "SHOW application_name")).isEqualTo(fresh);
            assertThat(str(a, "SHOW application_name")).isEqualTo("A-" + tag);
        }
    }
}
