package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.ManualClockAccess;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * How long each pin reason held a physical connection (issue 28), on the stub driver with the
 * pool's manual clock: one sample per binding the reason held, from when it started until it
 * ended or the binding did; the per-statement reasons are sampled as the binding's length.
 */
class PinTimesTest extends StubSupport {

    private final ManualClockAccess clock = new ManualClockAccess();

    private LoomPoolDataSource timed() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setClock(clock);
        ds.setMaxSize(1);
        ds.start();
        return ds;
    }

    @Test
    void aTransactionIsTimedFromItsFirstStatementToItsCommit() throws SQLException {
        LoomPoolDataSource ds = timed();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            BindingTest.query(c, "SELECT 1");
            clock.advance(Duration.ofSeconds(3));
            BindingTest.query(c, "SELECT 2");
            clock.advance(Duration.ofSeconds(2));
            c.commit();
            clock.advance(Duration.ofSeconds(7)); // unbound: nothing holds it
            c.setAutoCommit(true);
        }
        assertTime(ds.getPinTimes(), PinReason.TRANSACTION, 1, Duration.ofSeconds(5), Duration.ofSeconds(5));
        assertTime(ds.getPinTimes(), PinReason.STATEMENT, 1, Duration.ofSeconds(5), Duration.ofSeconds(5));
    }

    @Test
    void eachBindingIsOneSampleAndTheMaxIsTheLongest() throws SQLException {
        LoomPoolDataSource ds = timed();
        try (Connection c = ds.getConnection()) {
            for (int seconds : new int[] {1, 4, 2}) {
                c.setAutoCommit(false);
                BindingTest.query(c, "SELECT 1");
                clock.advance(Duration.ofSeconds(seconds));
                c.rollback();
                c.setAutoCommit(true);
            }
        }
        assertTime(ds.getPinTimes(), PinReason.TRANSACTION, 3, Duration.ofSeconds(7), Duration.ofSeconds(4));
    }

    @Test
    void anExplicitPinIsTimedUntilUnpinAndAStatementForItsBinding() throws SQLException {
        LoomPoolDataSource ds = timed();
        try (Connection c = ds.getConnection()) {
            PreparedStatement ps = c.prepareStatement("SELECT 1");
            clock.advance(Duration.ofSeconds(1));
            ps.close(); // the binding ends: STATEMENT, 1 s
            c.unwrap(LoomConnection.class).pin();
            BindingTest.query(c, "SELECT 1");
            clock.advance(Duration.ofSeconds(2));
            c.unwrap(LoomConnection.class).unpin();
        }
        Map<PinReason, PinTime> times = ds.getPinTimes();
        assertTime(times, PinReason.EXPLICIT, 1, Duration.ofSeconds(2), Duration.ofSeconds(2));
        assertTime(times, PinReason.STATEMENT, 2, Duration.ofSeconds(3), Duration.ofSeconds(2));
    }

    @Test
    void aFrameworkTransactionAndSessionStateEndWithTheBinding() throws SQLException {
        LoomPoolDataSource ds = timed();
        try (Connection c = ds.getConnection()) {
            c.unwrap(LoomConnection.class).beginFrameworkTransaction();
            BindingTest.query(c, "SELECT 1");
            clock.advance(Duration.ofSeconds(5));
            try (Statement st = c.createStatement()) {
                st.execute("SET search_path TO app");
            }
            clock.advance(Duration.ofSeconds(4));
            c.unwrap(LoomConnection.class).endFrameworkTransaction(); // session state still holds, until close
            clock.advance(Duration.ofSeconds(6));
        }
        Map<PinReason, PinTime> times = ds.getPinTimes();
        assertTime(times, PinReason.FRAMEWORK_TRANSACTION, 1, Duration.ofSeconds(9), Duration.ofSeconds(9));
        assertTime(times, PinReason.SESSION_STATE, 1, Duration.ofSeconds(10), Duration.ofSeconds(10));
        assertTime(times, PinReason.TRANSACTION, 0, Duration.ZERO, Duration.ZERO);
    }

    @Test
    void aStatementValueIsSampledAsItsBinding() throws SQLException {
        LoomPoolDataSource ds = timed();
        try (Connection c = ds.getConnection()) {
            BindingTest.query(c, "SELECT nextval('s')");
            clock.advance(Duration.ofSeconds(2)); // kept for a lastval() that may follow
            BindingTest.query(c, "SELECT 1");
        }
        assertTime(ds.getPinTimes(), PinReason.STATEMENT_VALUE, 1, Duration.ofSeconds(2), Duration.ofSeconds(2));
    }

    private static void assertTime(Map<PinReason, PinTime> times, PinReason r, long count, Duration total, Duration max) {
        assertThat(times.get(r)).as("%s", r).isEqualTo(new PinTime(count, total, max));
    }
}
