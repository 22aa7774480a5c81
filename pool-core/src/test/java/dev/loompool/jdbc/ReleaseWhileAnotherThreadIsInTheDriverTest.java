package dev.loompool.jdbc;

import static dev.loompool.jdbc.RacingThreads.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A release (the last pin ends) or a close on one thread while another thread's run (a cancel, a
 * metadata call) is in the driver (DESIGN.md §4 "One state machine, every thread", "Release"): the
 * connection is not lent while that run may still reach it, and the release still ends.
 */
class ReleaseWhileAnotherThreadIsInTheDriverTest extends StubSupport {

    /** A pool of one stub connection behind the deep gate; the gate disarmed after each test. */
    @RegisterExtension
    final DeepGatedPools gated = new DeepGatedPools(this);

    // =================================================================================================
    // A release (the last pin ends) while a run of another thread is in the driver: it waits
    // =================================================================================================

    /**
     * A's statement pins; thread C calls {@code st.cancel()}, stopped in the driver; thread R closes
     * the statement (the last pin): the connection must not go back while the cancel may still reach
     * it (MariaDB's KILL QUERY, pgjdbc's cancel request go by the backend id).
     */
    @Test
    void aReleaseWaitsForACancelOfAnotherThreadStillInTheDriver() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = gated.one();
            Connection a = ds.getConnection();
            Statement st = a.createStatement();
            st.execute("SELECT 1");
            AtomicReference<Throwable> failure = new AtomicReference<>();
            DeepGateDriver.Gate g = DeepGateDriver.arm(Statement.class, "cancel", null);
            Thread c = other("canceller", st::cancel, failure);
            g.awaitArrival();
            Thread r = other("releaser", st::close, failure);
            int held = inUseWhileHeld(ds, r);
            g.letGo();
            c.join(10_000);
            r.join(10_000);
            assertThat(held).as("the connection stays lent while C's cancel is in the driver").isEqualTo(1);
            assertThat(r.isAlive()).as("the release ends once the cancel returned").isFalse();
            assertThat(failure.get()).isNull();
            boundOnlyForAReason(a);
            freeWithinFiveSeconds(ds);
            a.close();
            assertThat(ds.getOpenHandles()).isZero();
        });
    }

    /**
     * Thread C's {@code getTables} is in the driver (a run, counted from meta()); thread R closes A's
     * only statement: the release is deferred to C's run, whose metadata result set then pins until
     * C closes it. The connection is lent throughout and goes back once, when C closes its result set.
     */
    @Test
    void aReleaseDuringAMetadataCallOfAnotherThreadIsLeftToItsRunAndItsResultSet() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = gated.one();
            Connection a = ds.getConnection();
            Statement st = a.createStatement();
            st.execute("SELECT 1");
            DatabaseMetaData md = a.getMetaData();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<ResultSet> tables = new AtomicReference<>();
            DeepGateDriver.Gate g = DeepGateDriver.arm(DatabaseMetaData.class, "getTables", null);
            Thread c = other("metadata", () -> tables.set(md.getTables(null, null, "%", null)), failure);
            g.awaitArrival();
            Thread r = other("releaser", st::close, failure);
            int held = inUseWhileHeld(ds, r);
            g.letGo();
            c.join(10_000);
            r.join(10_000);
            assertThat(failure.get()).isNull();
            assertThat(held).as("lent while C's getTables is in the driver").isEqualTo(1);
            assertThat(inUse(ds)).as("C's metadata result set pins it").isEqualTo(1);
            boundOnlyForAReason(a);
            tables.get().close();
            assertThat(inUse(ds)).as("the result set's close lets the connection go").isZero();
            freeWithinFiveSeconds(ds);
            a.close();
            assertThat(ds.getOpenHandles()).isZero();
        });
    }

    /**
     * A release whose run ends on the releasing thread's own error path: C's cancel fails with a
     * plain (not connection) error while R's release waits for it; the release still completes.
     */
    @Test
    void aReleaseWaitingForACancelThatFailsStillEnds() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = gated.one();
            Connection a = ds.getConnection();
            Statement st = a.createStatement();
            st.execute("SELECT 1");
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Throwable> cancelFailure = new AtomicReference<>();
            DeepGateDriver.Gate g = DeepGateDriver.arm(Statement.class, "cancel", null);
            Thread c = other("canceller", st::cancel, cancelFailure);
            g.awaitArrival();
            DeepGateDriver.fault = new DeepGateDriver.Fault(Statement.class, "cancel", new SQLException("no", "HY000"));
            Thread r = other("releaser", st::close, failure);
            int held = inUseWhileHeld(ds, r);
            g.letGo();
            c.join(10_000);
            r.join(10_000);
            assertThat(held).isEqualTo(1);
            assertThat(r.isAlive()).isFalse();
            assertThat(failure.get()).isNull();
            freeWithinFiveSeconds(ds);
            a.close();
            assertThat(ds.getOpenHandles()).isZero();
        });
    }

    // =================================================================================================
    // A close (bound) while a run of another thread is in the driver
    // =================================================================================================

    /**
     * As {@link #aReleaseWaitsForACancelOfAnotherThreadStillInTheDriver}, but thread R closes the
     * handle instead of the statement. The release waits for the run (HandleLife.unbind ->
     * awaitRuns); the close does not: it only settles the connection with {@code isValid}
     * (ForeignRelease.settle), which a cancel in flight does not hold up (MariaDB sends KILL QUERY
     * over a connection of its own, pgjdbc a cancel request over a socket of its own), then gives
     * the connection back while the cancel is still on its way to the backend the next borrower has.
     */
    @Test
    void aCloseWaitsForACancelOfAnotherThreadStillInTheDriver() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = gated.one();
            Connection a = ds.getConnection();
            Statement st = a.createStatement();
            st.execute("SELECT 1");
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Throwable> cancelOutcome = new AtomicReference<>();
            DeepGateDriver.Gate g = DeepGateDriver.arm(Statement.class, "cancel", null);
            Thread c = other("canceller", st::cancel, cancelOutcome);
            g.awaitArrival();
            Thread r = other("closer", a::close, failure);
            int held = inUseWhileHeld(ds, r);
            g.letGo();
            c.join(10_000);
            r.join(10_000);
            assertThat(held).as("the connection stays lent while C's cancel is in the driver").isEqualTo(1);
            assertThat(failure.get()).isNull();
            freeWithinFiveSeconds(ds);
            assertThat(ds.getOpenHandles()).isZero();
        });
    }

    /** The same with a metadata call of another thread in the driver (a run from meta()). */
    @Test
    void aCloseWaitsForAMetadataCallOfAnotherThreadStillInTheDriver() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = gated.one();
            Connection a = ds.getConnection();
            Statement st = a.createStatement();
            st.execute("SELECT 1");
            DatabaseMetaData md = a.getMetaData();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Throwable> metaOutcome = new AtomicReference<>();
            DeepGateDriver.Gate g = DeepGateDriver.arm(DatabaseMetaData.class, "getTables", null);
            Thread c = other("metadata", () -> md.getTables(null, null, "%", null), metaOutcome);
            g.awaitArrival();
            Thread r = other("closer", a::close, failure);
            int held = inUseWhileHeld(ds, r);
            g.letGo();
            c.join(10_000);
            r.join(10_000);
            assertThat(held).as("the connection stays lent while C's getTables is in the driver").isEqualTo(1);
            assertThat(failure.get()).isNull();
            freeWithinFiveSeconds(ds);
            assertThat(ds.getOpenHandles()).isZero();
        });
    }

    /**
     * The same on PostgreSQL, where it shows: A's statement, thread C's {@code st.cancel()} stopped
     * before pgjdbc sends the cancel request; thread R closes A; B borrows the pool's one connection
     * and runs {@code pg_sleep(3)}; once B's query runs on the server, C's cancel goes on. A close
     * that waited for C's run would lend B the connection only after the cancel: B's query succeeds.
     * It does here even though the close does not wait (the stub tests above): the handle's close
     * closes A's statement first, and pgjdbc refuses cancel() on a closed statement. Only a cancel
     * already past that check inside the driver (not reachable by a gate at the entry) could land.
     */
    @Test
    void postgresCloseOverACancelInFlightNeverCancelsTheNextBorrowersQuery() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = gated.one();
            ds.setJdbcUrl(DeepGateDriver.PREFIX + TestDatabase.POSTGRES.url());
            Connection a = ds.getConnection();
            Statement st = a.createStatement();
            st.execute("SELECT 1");
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Throwable> cancelOutcome = new AtomicReference<>();
            DeepGateDriver.Gate g = DeepGateDriver.arm(Statement.class, "cancel", null);
            Thread c = other("canceller", st::cancel, cancelOutcome);
            g.awaitArrival();
            Thread r = other("closer", a::close, failure);
            r.join(3_000);
            AtomicReference<Throwable> bOutcome = new AtomicReference<>();
            Thread b = other("second-borrower", () -> {
                try (Connection bc = ds.getConnection(); Statement bs = bc.createStatement()) {
                    bs.execute("SELECT pg_sleep(3) AS b_marker");
                }
            }, bOutcome);
            try (Connection admin = TestDatabase.POSTGRES.admin(); Statement as = admin.createStatement()) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                boolean running = false;
                while (!running && System.nanoTime() < deadline) {
                    try (ResultSet rs = as.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE state = 'active' "
                            + "AND query LIKE '%b_marker%' AND pid <> pg_backend_pid()")) {
                        rs.next();
                        running = rs.getInt(1) > 0;
                    }
                    Thread.sleep(20);
                }
            }
            g.letGo();
            c.join(10_000);
            r.join(10_000);
            b.join(15_000);
            assertThat(failure.get()).isNull();
            assertThat(bOutcome.get()).as("B's query is never cancelled by A's cancel").isNull();
            assertThat(ds.getOpenHandles()).isZero();
        });
    }
}
