package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loompool.CircuitBreakerState;
import dev.loompool.ManualClockAccess;
import dev.loompool.ServiceUnavailableException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Issue 30: a start against a database that is down, under each initializationFailTimeout (0,
 * positive, negative), and what a caller gets when a connect fails.
 */
class StartupWhileDownTest extends StubSupport {

    /** A closed port: nothing listens there, so the real driver's connect is refused at once. */
    private static final String POSTGRES_NOBODY_LISTENS = "jdbc:postgresql://127.0.0.1:1/test?user=postgres";

    private LoomPoolDataSource down(int minSize, Duration initializationFailTimeout) {
        LoomPoolDataSource ds = dataSource();
        ds.setMinSize(minSize);
        ds.setInitializationFailTimeout(initializationFailTimeout);
        db.down();
        return ds;
    }

    // ---- 0: HikariCP's default, today's behaviour ------------------------------------------

    @Test
    void zeroFailsTheStartAtTheFirstFailedConnect() {
        LoomPoolDataSource ds = down(2, Duration.ZERO);
        SQLException e = catchThrowableOfType(SQLException.class, ds::start);
        assertThat((Throwable) e).hasMessageContaining("pool '" + ds.getPoolName() + "'")
                .hasMessageContaining("could not open its minSize=2 connections to jdbc:stub:")
                .hasMessageContaining("refused");
        assertThat(e.getSQLState()).isEqualTo("08001");
        assertThat(db.connects()).as("one attempt").isEqualTo(1);
        assertThat(ds.isRunning()).isFalse();
    }

    // ---- positive: wait for a database that starts beside the application ----------------------

    @Test
    void aPositiveTimeoutWaitsForTheDatabaseAndStartsFullOnceItAnswers() throws Exception {
        ManualClockAccess clock = new ManualClockAccess();
        LoomPoolDataSource ds = down(2, Duration.ofHours(1)); // long on the test's clock: a stalled CI thread cannot run it out
        ds.setClock(clock);
        Starting start = new Starting(ds);
        moveTimeUntil(clock, start, () -> db.connects() >= 4);
        assertThat(start.done()).as("still waiting for the database").isFalse();
        db.up();
        moveTimeUntil(clock, start, start::done);
        assertThat(start.failure.get()).isNull();
        assertThat(ds.getPool().stats().idle()).isEqualTo(2);
        assertThat(ds.getPool().state()).isEqualTo(CircuitBreakerState.ACTIVE);
        assertThat(ds.getInitialConnectError()).isNull();
    }

    @Test
    void aPositiveTimeoutFailsOnceItHasPassedNamingTheAttemptsAndTheTime() throws Exception {
        ManualClockAccess clock = new ManualClockAccess();
        LoomPoolDataSource ds = down(2, Duration.ofSeconds(10));
        ds.setClock(clock);
        Starting start = new Starting(ds);
        moveTimeUntil(clock, start, start::done);
        Throwable failure = start.failure.get();
        assertThat(failure).isInstanceOf(SQLException.class)
                .hasMessageContaining("pool '" + ds.getPoolName() + "'")
                .hasMessageContaining("jdbc:stub:" + db.name())
                .hasMessageContaining("initializationFailTimeout=10000 ms")
                .hasMessageContaining("refused");
        assertThat(((SQLException) failure).getSQLState()).isEqualTo("08001");
        assertThat(failure.getCause()).as("the last driver exception").isInstanceOf(SQLException.class)
                .hasMessageContaining("refused");
        Matcher tried = Pattern.compile("(\\d+) attempts over (\\d+) ms").matcher(failure.getMessage());
        assertThat(tried.find()).as(failure.getMessage()).isTrue();
        assertThat(Integer.parseInt(tried.group(1))).as("attempts").isEqualTo(db.connects()).isGreaterThan(5);
        assertThat(Long.parseLong(tried.group(2))).as("ms tried").isGreaterThanOrEqualTo(10_000);
        assertThat(ds.isRunning()).isFalse();
    }

    @Test
    void anInterruptDuringTheWaitStopsTheStartAndKeepsTheInterrupt() throws Exception {
        LoomPoolDataSource ds = down(1, Duration.ofHours(1));
        Starting start = new Starting(ds);
        eventually("a first attempt", () -> db.connects() >= 1);
        start.thread.interrupt();
        start.thread.join(Duration.ofSeconds(30).toMillis());
        assertThat(start.done()).isTrue();
        assertThat(start.failure.get()).isInstanceOf(SQLException.class).hasMessageContaining("interrupted");
        assertThat(start.interruptedAfter.get()).as("the interrupt flag is restored").isTrue();
        assertThat(ds.isRunning()).isFalse();
    }

    @Test
    void aCloseDuringTheWaitEndsTheStartAtOnceNamingTheClose() throws Exception {
        ManualClockAccess clock = new ManualClockAccess();
        LoomPoolDataSource ds = down(1, Duration.ofHours(1));
        ds.setClock(clock); // the clock never moves: only the close can end the start's wait
        Starting start = new Starting(ds);
        eventually("a first attempt", () -> db.connects() >= 1);
        Thread closing = new Thread(ds::close, "closing");
        closing.setDaemon(true);
        closing.start();
        closing.join(Duration.ofSeconds(30).toMillis());
        assertThat(closing.isAlive()).as("close() still waiting for the start").isFalse();
        start.thread.join(Duration.ofSeconds(30).toMillis());
        assertThat(start.done()).isTrue();
        assertThat(start.failure.get()).isInstanceOf(SQLException.class).hasMessageContaining("closed while starting");
        assertThat(start.interruptedAfter.get()).as("a close is no interrupt").isFalse();
        assertThat(ds.isRunning()).isFalse();
        assertThat((Throwable) catchThrowableOfType(SQLException.class, ds::start)).hasMessageContaining("closed");
    }

    // ---- negative: start without the database --------------------------------------------------

    @Test
    void aNegativeTimeoutStartsEmptyFailsRequestsAndConnectsInTheBackgroundOnceTheDatabaseAnswers() throws Exception {
        LoomPoolDataSource ds = down(2, Duration.ofMillis(-1));
        ds.setAcquireTimeout(Duration.ofSeconds(2));
        ds.setCircuitBreakerFailureThreshold(3);
        // no probe from a request in this test: the breaker closes only through the background connect
        ds.setCircuitBreakerOpenDuration(Duration.ofHours(1));
        String log;
        try (SecretLeaks.CapturedLog captured = SecretLeaks.CapturedLog.start()) {
            ds.start();
            log = captured.text();
        }
        assertThat(log).contains("started without connections: could not connect to jdbc:stub:" + db.name() + " (")
                .contains("connecting in the background");
        assertThat(ds.isRunning()).isTrue();
        assertThat(ds.getPool().stats().idle()).isZero();
        assertThat(ds.getInitialConnectError()).contains("refused");
        // A request meanwhile fails, within its acquire timeout: its own connect is refused, then the breaker fails it fast.
        try (Connection c = ds.getConnection()) {
            assertThatThrownBy(() -> BindingTest.query(c, "SELECT 1")).isInstanceOf(SQLException.class);
        }
        eventually("the background attempts open the breaker", () -> ds.getPool().state() == CircuitBreakerState.INACTIVE);
        try (Connection c = ds.getConnection()) {
            assertThatThrownBy(() -> BindingTest.query(c, "SELECT 1")).isInstanceOf(SQLTransientConnectionException.class)
                    .hasCauseInstanceOf(ServiceUnavailableException.class);
        }
        db.up();
        eventually("minSize connections opened in the background", () -> ds.getPool().stats().idle() == 2);
        eventually("the breaker closed", () -> ds.getPool().state() == CircuitBreakerState.ACTIVE);
        assertThat(ds.getInitialConnectError()).isNull();
        try (Connection c = ds.getConnection()) {
            BindingTest.query(c, "SELECT 1");
        }
    }

    @Test
    void aNegativeTimeoutWithTheDatabaseUpStartsFullAsAnyOther() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setMinSize(2);
        ds.setInitializationFailTimeout(Duration.ofMillis(-1));
        ds.start();
        assertThat(ds.getPool().stats().idle()).isEqualTo(2);
        assertThat(db.connects()).isEqualTo(2);
        assertThat(ds.getInitialConnectError()).isNull();
    }

    // ---- a failed connect names the pool -------------------------------------------------------

    @Test
    void aFailedConnectReachesTheCallerAsTheDriverThrewItWithThePoolAndItsCountsNamed() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        SQLNonTransientConnectionException refused = new SQLNonTransientConnectionException("Connection refused",
                "08001", 4242);
        db.failNextConnect(refused);
        try (Connection c = ds.getConnection()) {
            SQLException e = catchThrowableOfType(SQLException.class, () -> BindingTest.query(c, "SELECT 1"));
            // DESIGN.md §4: the driver's SQLState, code, kind and exception (the cause), the pool named
            assertThat((Throwable) e).isExactlyInstanceOf(SQLNonTransientConnectionException.class);
            assertThat(e.getCause()).isSameAs(refused);
            assertThat(e.getMessage()).startsWith("pool '" + ds.getPoolName() + "': could not open a connection (total=")
                    .endsWith("): Connection refused");
            assertThat(e.getSQLState()).isEqualTo("08001");
            assertThat(e.getErrorCode()).isEqualTo(4242);
        }
    }

    // ---- the real driver, against a port where nothing listens ---------------------------------

    @Test
    void aPositiveTimeoutAgainstAClosedPostgresPortFailsAfterItWithTheDriversError() {
        LoomPoolDataSource ds = dataSource();
        ds.setJdbcUrl(POSTGRES_NOBODY_LISTENS);
        ds.setMinSize(1);
        ds.setInitializationFailTimeout(Duration.ofMillis(1500));
        long began = System.nanoTime();
        SQLException e = catchThrowableOfType(SQLException.class, ds::start);
        assertThat(Duration.ofNanos(System.nanoTime() - began)).isGreaterThanOrEqualTo(Duration.ofMillis(1500));
        assertThat((Throwable) e).hasMessageContaining("127.0.0.1:1").hasMessageContaining("initializationFailTimeout=1500 ms");
        assertThat(e.getSQLState()).isEqualTo("08001"); // pgjdbc's connection refused
        assertThat(e.getCause().getClass().getName()).isEqualTo("org.postgresql.util.PSQLException");
        Matcher tried = Pattern.compile("(\\d+) attempts").matcher(e.getMessage());
        assertThat(tried.find()).isTrue();
        assertThat(Integer.parseInt(tried.group(1))).isGreaterThan(2);
    }

    @Test
    void aNegativeTimeoutAgainstAClosedPostgresPortStartsAndRequestsFailWithThePoolsName() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setJdbcUrl(POSTGRES_NOBODY_LISTENS);
        ds.setMinSize(1);
        ds.setAcquireTimeout(Duration.ofSeconds(2));
        ds.setInitializationFailTimeout(Duration.ofMillis(-1));
        ds.start();
        assertThat(ds.isRunning()).isTrue();
        assertThat(ds.getInitialConnectError()).contains("127.0.0.1:1");
        try (Connection c = ds.getConnection()) {
            SQLException e = catchThrowableOfType(SQLException.class, () -> BindingTest.query(c, "SELECT 1"));
            // pgjdbc's refused connect, or the open breaker's: the pool named either way
            assertThat(e.getMessage()).startsWith("pool '" + ds.getPoolName() + "'");
            assertThat(e.getSQLState()).isIn("08001", null);
        }
    }

    // ---- support -------------------------------------------------------------------------------

    /** {@code ds.start()} on its own thread, which the test's clock moves wake. */
    private static final class Starting {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicBoolean interruptedAfter = new AtomicBoolean();
        final AtomicBoolean finished = new AtomicBoolean();
        final Thread thread;

        Starting(LoomPoolDataSource ds) {
            thread = new Thread(() -> {
                try {
                    ds.start();
                } catch (Throwable e) {
                    failure.set(e);
                }
                interruptedAfter.set(Thread.currentThread().isInterrupted());
                finished.set(true);
            }, "starting");
            thread.setDaemon(true);
            thread.start();
        }

        boolean done() {
            return finished.get();
        }
    }

    /** Moves the manual clock on by half a second at a time, waking the start, until {@code condition} holds. */
    private static void moveTimeUntil(ManualClockAccess clock, Starting start, java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out; the start is " + (start.done() ? "done" : "still waiting"));
            }
            clock.advance(Duration.ofMillis(500));
            LockSupport.unpark(start.thread);
            LockSupport.parkNanos(2_000_000);
        }
    }
}
