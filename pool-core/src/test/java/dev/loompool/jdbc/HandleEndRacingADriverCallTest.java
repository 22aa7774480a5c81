package dev.loompool.jdbc;

import static dev.loompool.jdbc.RacingThreads.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A handle's end racing a call of another thread held in the driver (DESIGN.md §4 "One state
 * machine, every thread", "Handle state"): calls that see ENDING wait and say "closed", and a
 * savepoint call overtaken by a close retires the connection rather than lend it.
 */
class HandleEndRacingADriverCallTest extends StubSupport {

    /** A pool of one stub connection behind the deep gate; the gate disarmed after each test. */
    @RegisterExtension
    final DeepGatedPools gated = new DeepGatedPools(this);

    // =================================================================================================
    // ENDING seen by other threads; the abort held in the driver
    // =================================================================================================

    /**
     * A watchdog aborts A's handle and is stopped in the driver's {@code abort} (the handle is
     * ENDING meanwhile). A's own thread then calls {@code createStatement()}: it must wait for the
     * end (settledEnd), then say "closed", never reach the connection; isClosed() says true at once;
     * the connection is retired, not lent; the count is 0.
     */
    @Test
    void aCallThatSeesEndingWaitsForTheAbortAndSaysClosed() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = gated.one();
            Connection a = ds.getConnection();
            a.unwrap(LoomConnection.class).pin();
            try (Statement st = a.createStatement()) {
                st.execute("SELECT 1");
            }
            assertThat(ds.getOpenHandles()).isEqualTo(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            DeepGateDriver.Gate g = DeepGateDriver.arm(Connection.class, "abort", null);
            Thread w = other("watchdog", () -> a.abort(Runnable::run), failure);
            g.awaitArrival();
            assertThat(a.isClosed()).as("ENDING is not open").isTrue();
            AtomicReference<Throwable> ownerCall = new AtomicReference<>();
            Thread owner = other("owner", a::createStatement, ownerCall);
            owner.join(300);
            g.letGo();
            w.join(10_000);
            owner.join(10_000);
            assertThat(failure.get()).isNull();
            assertThat(owner.isAlive()).isFalse();
            assertThat(ownerCall.get()).isInstanceOf(SQLException.class).hasMessageContaining("closed");
            assertThat(ds.getOpenHandles()).isZero();
            assertThat(stub(1).isClosed()).as("the aborted connection is retired").isTrue();
            freeWithinFiveSeconds(ds);
            assertThat(db.connects()).isEqualTo(2);
        });
    }

    /** A close on another thread while the abort is in the driver returns (no wait on ENDING it cannot finish) and counts nothing twice. */
    @Test
    void aCloseDuringAnAbortInTheDriverReturnsAndCountsOnce() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = gated.one();
            Connection a = ds.getConnection();
            Connection other = ds.getConnection(); // a second handle, counted, unbound: the count must stay 1 for it
            a.unwrap(LoomConnection.class).pin();
            a.createStatement().close();
            other.getAutoCommit(); // first use: counted
            int before = ds.getOpenHandles();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            DeepGateDriver.Gate g = DeepGateDriver.arm(Connection.class, "abort", null);
            Thread w = other("watchdog", () -> a.abort(Runnable::run), failure);
            g.awaitArrival();
            Thread closer = other("closer", a::close, failure);
            closer.join(10_000);
            assertThat(closer.isAlive()).as("close of an ENDING handle returns").isFalse();
            g.letGo();
            w.join(10_000);
            assertThat(failure.get()).isNull();
            assertThat(ds.getOpenHandles()).isEqualTo(before - 1);
            other.close();
            assertThat(ds.getOpenHandles()).isZero();
            freeWithinFiveSeconds(ds);
        });
    }

    // =================================================================================================
    // Savepoint calls overtaken by a close
    // =================================================================================================

    /**
     * A (autocommit off) sets a savepoint; owner thread calls {@code releaseSavepoint}, stopped in
     * the driver; the watchdog closes A. The connection must be retired (the call may land in the
     * next borrower's transaction), not lent: B gets a new physical connection.
     */
    @Test
    void aSavepointCallOvertakenByACloseRetiresTheConnection() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = gated.one();
            Connection a = ds.getConnection();
            a.setAutoCommit(false);
            try (Statement st = a.createStatement()) {
                st.execute("INSERT INTO t VALUES (1)");
            }
            Savepoint sp = a.setSavepoint("s1");
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Throwable> spOutcome = new AtomicReference<>();
            DeepGateDriver.Gate g = DeepGateDriver.arm(Connection.class, "releaseSavepoint", null);
            Thread owner = other("owner", () -> a.releaseSavepoint(sp), spOutcome);
            g.awaitArrival();
            Thread w = other("watchdog", a::close, failure);
            w.join(10_000);
            g.letGo();
            owner.join(10_000);
            assertThat(failure.get()).isNull();
            assertThat(stub(1).sql()).as("A's work is never committed").doesNotContain("COMMIT");
            freeWithinFiveSeconds(ds);
            assertThat(db.connects()).as("the overtaken connection was retired, B got a new one").isEqualTo(2);
            assertThat(ds.getOpenHandles()).isZero();
        });
    }

    /** setSavepoint stopped in the driver, close on another thread: same. */
    @Test
    void aSetSavepointOvertakenByACloseRetiresTheConnection() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = gated.one();
            Connection a = ds.getConnection();
            a.setAutoCommit(false);
            try (Statement st = a.createStatement()) {
                st.execute("INSERT INTO t VALUES (1)");
            }
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Throwable> spOutcome = new AtomicReference<>();
            DeepGateDriver.Gate g = DeepGateDriver.arm(Connection.class, "setSavepoint", null);
            Thread owner = other("owner", () -> a.setSavepoint("s2"), spOutcome);
            g.awaitArrival();
            Thread w = other("watchdog", a::close, failure);
            w.join(10_000);
            g.letGo();
            owner.join(10_000);
            assertThat(failure.get()).isNull();
            assertThat(stub(1).sql()).doesNotContain("COMMIT");
            freeWithinFiveSeconds(ds);
            assertThat(db.connects()).isEqualTo(2);
            assertThat(ds.getOpenHandles()).isZero();
        });
    }
}
