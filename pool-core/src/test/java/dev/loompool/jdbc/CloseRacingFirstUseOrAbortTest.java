package dev.loompool.jdbc;

import static dev.loompool.jdbc.RacingThreads.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A close racing a handle's first use, and an abort racing a close, on two threads released together
 * (DESIGN.md §4 "One state machine, every thread"): no hang, nothing left bound, the open-handle count
 * exact, the connection given back once.
 */
class CloseRacingFirstUseOrAbortTest extends StubSupport {

    /** A pool of one stub connection behind the deep gate; the gate disarmed after each test. */
    @RegisterExtension
    final DeepGatedPools gated = new DeepGatedPools(this);

    // =================================================================================================
    // Short stress: close racing a first use; abort racing close
    // =================================================================================================

    /**
     * 300 rounds: a fresh handle's first use (createStatement) on thread X and its close on thread Y,
     * released by one barrier. Each round: no hang, the handle closed and unbound, the count 0, the
     * pool's one connection free again.
     */
    @Test
    void closeRacingAFirstUseLeavesNothingBoundOrCounted() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = gated.one();
            for (int i = 0; i < 300; i++) {
                Connection a = ds.getConnection();
                CyclicBarrier start = new CyclicBarrier(2);
                AtomicReference<Throwable> failure = new AtomicReference<>();
                AtomicReference<Throwable> useOutcome = new AtomicReference<>();
                Thread x = other("first-use", () -> {
                    start.await();
                    try (Statement st = a.createStatement()) {
                        st.execute("SELECT 1");
                    }
                }, useOutcome);
                Thread y = other("closer", () -> {
                    start.await();
                    a.close();
                }, failure);
                x.join(10_000);
                y.join(10_000);
                assertThat(x.isAlive() || y.isAlive()).as("round " + i + ": no thread stuck").isFalse();
                assertThat(failure.get()).isNull();
                if (useOutcome.get() != null) {
                    assertThat(useOutcome.get()).as("round " + i).isInstanceOf(SQLException.class);
                }
                LoomConnection h = a.unwrap(LoomConnection.class);
                assertThat(a.isClosed()).isTrue();
                assertThat(h.isBound()).as("round " + i + ": closed and unbound").isFalse();
                assertThat(ds.getOpenHandles()).as("round " + i + ": count").isZero();
                assertThat(inUse(ds)).as("round " + i + ": the connection is back").isZero();
            }
            freeWithinFiveSeconds(ds);
        });
    }

    /**
     * 300 rounds: a pinned, bound handle, closed on X and aborted on Y at once. Each round: no
     * hang, the count exact (a second, counted handle keeps it at 1 so a double count-down shows),
     * the pool's connection back (or retired, and the idle one checked: then back once checked).
     */
    @Test
    void abortRacingACloseCountsOnceAndGivesBackOnce() {
        assertTimeoutPreemptively(HANG, () -> {
            LoomPoolDataSource ds = gated.one();
            ds.setMaxSize(2);
            Connection keeper = ds.getConnection();
            keeper.getAutoCommit();
            keeper.isReadOnly();
            try (Statement st = keeper.createStatement()) {
                st.execute("SELECT 0");
            }
            assertThat(ds.getOpenHandles()).isEqualTo(1);
            for (int i = 0; i < 300; i++) {
                Connection a = ds.getConnection();
                a.unwrap(LoomConnection.class).pin();
                a.createStatement().close();
                CyclicBarrier start = new CyclicBarrier(2);
                AtomicReference<Throwable> failure = new AtomicReference<>();
                Thread x = other("closer", () -> {
                    start.await();
                    a.close();
                }, failure);
                Thread y = other("aborter", () -> {
                    start.await();
                    a.abort(Runnable::run);
                }, failure);
                x.join(10_000);
                y.join(10_000);
                assertThat(x.isAlive() || y.isAlive()).as("round " + i + ": no thread stuck").isFalse();
                assertThat(failure.get()).isNull();
                assertThat(a.isClosed()).isTrue();
                assertThat(ds.getOpenHandles()).as("round " + i + ": only the keeper counts").isEqualTo(1);
                // Not at once: when the abort won, the broken connection is retired and the pool checks
                // its idle ones (the keeper's) at once, on the housekeeper, which holds one meanwhile.
                int round = i;
                eventually("round " + round + ": every connection back", () -> inUse(ds) == 0);
            }
            keeper.close();
            assertThat(ds.getOpenHandles()).isZero();
        });
    }
}
