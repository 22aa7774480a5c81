package dev.loompool.jdbc;

import static dev.loompool.jdbc.BindingTest.query;
import static dev.loompool.jdbc.ReclaimSupport.PERIOD;
import static dev.loompool.jdbc.ReclaimTest.onThreadThatEnds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.jdbc.internal.handle.Internals;
import dev.loompool.jdbc.internal.handle.Internals.Taken;
import dev.loompool.stub.StubConnection;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Close and reclaim race safely (DESIGN.md §4): exactly one of them returns the connection, the
 * handle is counted down exactly once, and a handle whose connection was taken never binds again.
 * The random race, then each interleaving of the protocol forced step by step: the reclaimer
 * takes the connection's lease first, then moves the handle's state; close and the handle's own
 * release take the lease too, and settle by the state when they find it gone. Before all that the
 * reclaimer claims the handle from its ended owner, and a thread that starts using the handle
 * takes it over from that owner, each by compare-and-set: a reclaim never starts under a call,
 * and a call never reaches a connection the reclaimer is taking.
 */
class ReclaimRaceTest extends StubSupport {

    private final ReclaimSupport reclaimer = new ReclaimSupport();

    private static Connection openTransaction(LoomPoolDataSource ds, String sql) throws SQLException {
        Connection c = ds.getConnection();
        c.setAutoCommit(false);
        query(c, sql);
        return c;
    }

    private static long count(StubConnection stub, String sql) {
        return stub.sql().stream().filter(sql::equals).count();
    }

    /**
     * A close or abort on another thread that read the handle (open, bound to p) just before the
     * reclaimer took p, gave it back and C bound it, must not end C's binding: it used to swap any
     * binding of p away, return p to the pool under C, and (abort) kill C's backend. Each forced here.
     */
    @Test
    void aLateCloseNeverEndsTheNextBorrowersBinding() throws Exception {
        lateEndOfAReclaimedHandle(false);
    }

    @Test
    void aLateAbortNeverEndsTheNextBorrowersBinding() throws Exception {
        lateEndOfAReclaimedHandle(true);
    }

    private void lateEndOfAReclaimedHandle(boolean abort) throws Exception {
        LoomPoolDataSource ds = reclaimer.reclaiming(dataSource());
        ds.setMaxSize(1);
        Connection a = onThreadThatEnds(() -> openTransaction(ds, "INSERT A"));
        Taken taken = onThreadThatEnds(() -> Internals.handle(a).take());
        taken.giveBackLeavingTheHandle(); // a's handle still reads open and bound to p
        try (Connection c = ds.getConnection(); var s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("INSERT C");
            if (abort) {
                a.abort(Runnable::run);
            } else {
                a.close();
            }
            assertThat(ds.getPool().stats().inUse()).as("C still holds p").isEqualTo(1);
            assertThat(ds.getPool().stats().idle()).isZero();
            assertThat(stub(1).isClosed()).as("C's connection alive").isFalse();
            s.execute("INSERT C2");
            c.commit();
        }
        assertThat(a.isClosed()).isTrue();
        assertThat(stub(1).sql()).containsSubsequence("INSERT C", "INSERT C2", "COMMIT");
        assertThat(db.connects()).isEqualTo(1);
    }

    @Test
    void closeRacingReclaimReleasesTheConnectionOnceAndCountsExactly() throws Exception {
        LoomPoolDataSource ds = reclaimer.reclaiming(dataSource());
        ds.setMaxSize(1);
        int rounds = 300;
        long closedByTheCaller = 0;
        for (int i = 0; i < rounds; i++) {
            String sql = "INSERT " + i;
            Connection c = onThreadThatEnds(() -> openTransaction(ds, sql));
            if (i % 2 == 1) { // the racing scan reclaims; in the other rounds it is the first to see the owner gone
                ds.scanNow();
                reclaimer.clock.advance(PERIOD);
            }
            CountDownLatch go = new CountDownLatch(1);
            Thread closer = new Thread(() -> {
                await(go);
                try {
                    c.close();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread reclaimer = new Thread(() -> {
                await(go);
                ds.scanNow();
            });
            closer.start();
            reclaimer.start();
            go.countDown();
            closer.join();
            reclaimer.join();
            closedByTheCaller = i + 1 - ds.getReclaimedConnections();
            assertThat(c.isClosed()).isTrue();
            assertThat(ds.getOpenHandles()).as("round %d", i).isZero();
            assertThat(ds.getPool().stats().inUse()).as("round %d", i).isZero();
            assertThat(ds.getPool().stats().total()).as("round %d", i).isEqualTo(1);
            assertThat(count(stub(1), "ROLLBACK")).as("rolled back once per round, round %d", i).isEqualTo(i + 1);
        }
        assertThat(stub(1).isClosed()).isFalse();
        assertThat(db.connects()).isEqualTo(1);
        assertThat(closedByTheCaller + ds.getReclaimedConnections()).isEqualTo(rounds);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }


    /** The reclaimer's first step on the handle of {@code c}: it takes its connection's lease. */
    private static Taken take(Connection c) throws SQLException {
        return Internals.handle(c).take();
    }

    @Test
    void aCloseThatFindsTheLeaseTakenButTheHandleOpenEndsTheHandleAndTheReclaimerOnlyReturnsTheConnection()
            throws Exception {
        LoomPoolDataSource ds = reclaimer.reclaiming(dataSource());
        Connection c = openTransaction(ds, "INSERT 1");
        Taken taken = take(c);
        c.close();
        assertThat(c.isClosed()).isTrue();
        assertThat(ds.getOpenHandles()).isZero();
        assertThat(ds.getPool().stats().inUse()).as("the reclaimer still has it").isEqualTo(1);
        assertThat(taken.reclaim()).as("the close ended the handle").isFalse();
        assertThat(ds.getOpenHandles()).isZero();
        assertThat(ds.getPool().stats().inUse()).isZero();
        assertThat(stub(1).sql()).containsExactly("INSERT 1", "ROLLBACK");
        assertThatThrownBy(() -> query(c, "SELECT 1")).hasMessage("connection is closed");
    }

    @Test
    void aReclaimThatEndsTheHandleFirstLeavesItsCloseNothingToDo() throws Exception {
        LoomPoolDataSource ds = reclaimer.reclaiming(dataSource());
        Connection c = openTransaction(ds, "INSERT 1");
        assertThat(take(c).reclaim()).isTrue();
        assertThat(ds.getOpenHandles()).isZero();
        c.close();
        assertThat(ds.getOpenHandles()).isZero();
        assertThat(ds.getPool().stats().inUse()).isZero();
        assertThat(stub(1).sql()).containsExactly("INSERT 1", "ROLLBACK");
        assertThatThrownBy(c::commit).hasMessageStartingWith("connection was reclaimed: ");
    }

    @Test
    void aHandleWhoseConnectionWasTakenAsItLetGoEndsReclaimedAtItsNextCallAndNeverBindsAgain() throws Exception {
        LoomPoolDataSource ds = reclaimer.reclaiming(dataSource());
        Connection c = openTransaction(ds, "INSERT 1");
        Taken taken = take(c);
        // its own thread, still using it: the commit finds the binding gone and never reaches the connection
        assertThatThrownBy(c::commit).hasMessageStartingWith("connection was reclaimed: ");
        assertThat(c.unwrap(LoomConnection.class).isBound()).isFalse();
        assertThatThrownBy(() -> query(c, "SELECT 1")).hasMessageStartingWith("connection was reclaimed: ");
        assertThat(ds.getOpenHandles()).isZero();
        assertThat(taken.reclaim()).as("the handle already ended itself").isFalse();
        assertThat(ds.getPool().stats().inUse()).isZero();
        assertThat(db.connects()).as("it never bound another connection").isEqualTo(1);
        c.close();
        assertThat(ds.getOpenHandles()).isZero();
        assertThat(stub(1).sql()).containsExactly("INSERT 1", "ROLLBACK");
    }

    @Test
    void aHandleUnderWatchIsCountedDownOnceWhicheverEndsItFirst() throws Exception {
        LoomPoolDataSource ds = reclaimer.reclaiming(dataSource());
        Connection c = openTransaction(ds, "INSERT 1");
        Internals.Handle handle = Internals.handle(c);
        Internals.Watch watch = handle.watch();
        assertThat(watch).isNotNull();
        assertThat(handle.watch().target()).as("one watch a handle").isSameAs(watch.target());
        assertThat(handle.take().reclaim()).isTrue();
        assertThat(watch.countedDown()).isTrue();
        assertThat(watch.countDown()).as("the collector finding it later counts nothing").isFalse();
        c.close();
        assertThat(ds.getOpenHandles()).isZero();
    }

    // ---- the claim: a first use by another thread racing the owner-exit reclaim ----------------------

    /** A's handle, inside a transaction (INSERT 1), and A, whose thread has ended. */
    private record Left(Connection c, Internals.Handle handle, Thread a) {
    }

    private Left leftByAThreadThatEnds(LoomPoolDataSource ds, String sql) throws InterruptedException {
        return onThreadThatEnds(() -> {
            Connection c = openTransaction(ds, sql);
            return new Left(c, Internals.handle(c), Thread.currentThread());
        });
    }

    /** B starts using the handle while the reclaimer holds its claim; what B's call ended with, or null. */
    private static Thread startUsing(Connection c, String sql, AtomicReference<Throwable> outcome) {
        Thread b = new Thread(() -> {
            try {
                query(c, sql);
            } catch (Throwable e) {
                outcome.set(e);
            }
        }, "B");
        b.start();
        eventually("B waits for the reclaimer's verdict", () -> b.getState() == Thread.State.TIMED_WAITING);
        return b;
    }

    @Test
    void aThreadThatStartsUsingTheHandleWhileTheReclaimerHoldsItWaitsAndIsRefusedIfItIsTaken() throws Exception {
        LoomPoolDataSource ds = reclaimer.reclaiming(dataSource());
        Left left = leftByAThreadThatEnds(ds, "INSERT 1");
        Object claim = left.handle().claimForReclaim(left.a());
        assertThat(claim).isNotNull();
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread b = startUsing(left.c(), "INSERT 2", outcome);
        assertThat(stub(1).sql()).as("B's call has not reached the connection").containsExactly("INSERT 1");
        assertThat(left.handle().take().reclaim()).isTrue();
        b.join();
        assertThat(outcome.get()).isInstanceOf(SQLException.class)
                .hasMessageStartingWith("connection was reclaimed: its owner thread " + left.a().getName() + " ended");
        assertThat(stub(1).sql()).containsExactly("INSERT 1", "ROLLBACK");
        assertThat(left.handle().ownerThread()).isSameAs(left.a());
        assertThat(ds.getOpenHandles()).isZero();
        assertThat(ds.getPool().stats().inUse()).isZero();
    }

    @Test
    void aThreadThatWaitedForAClaimGivenUpGoesOnAndKeepsTheHandle() throws Exception {
        LoomPoolDataSource ds = reclaimer.reclaiming(dataSource());
        Left left = leftByAThreadThatEnds(ds, "INSERT 1");
        Object claim = left.handle().claimForReclaim(left.a());
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread b = startUsing(left.c(), "INSERT 2", outcome);
        left.handle().dropClaim(claim); // the reclaimer found statements open, or the lease gone
        b.join();
        assertThat(outcome.get()).isNull();
        assertThat(left.handle().ownerThread()).isSameAs(b);
        assertThat(left.handle().claimForReclaim(left.a())).as("A is no longer its user").isNull();
        left.c().commit();
        left.c().close();
        assertThat(stub(1).sql()).containsExactly("INSERT 1", "INSERT 2", "COMMIT");
    }

    @Test
    void aHandleAnotherThreadUsedFirstCannotBeClaimed() throws Exception {
        LoomPoolDataSource ds = reclaimer.reclaiming(dataSource());
        Left left = leftByAThreadThatEnds(ds, "INSERT 1");
        ds.scanNow();
        query(left.c(), "INSERT 2"); // B, this thread
        assertThat(left.handle().claimForReclaim(left.a())).isNull();
        reclaimer.clock.advance(PERIOD.multipliedBy(3));
        ds.scanNow();
        assertThat(ds.getReclaimedConnections()).isZero();
        left.c().commit();
        left.c().close();
        assertThat(stub(1).sql()).containsExactly("INSERT 1", "INSERT 2", "COMMIT");
    }

    /** The random race: B's first call against the scan that reclaims. Either B keeps it all, or B's call never ran. */
    @Test
    void aFirstUseRacingTheReclaimEitherKeepsTheTransactionOrNeverReachesTheConnection() throws Exception {
        LoomPoolDataSource ds = reclaimer.reclaiming(dataSource());
        ds.setMaxSize(1);
        int rounds = 300;
        for (int i = 0; i < rounds; i++) {
            Left left = leftByAThreadThatEnds(ds, "INSERT " + i);
            ds.scanNow(); // A is seen gone; a period later the next scan reclaims, unless B used it
            reclaimer.clock.advance(PERIOD);
            CountDownLatch go = new CountDownLatch(1);
            AtomicReference<String> outcome = new AtomicReference<>();
            String update = "UPDATE " + i;
            Thread b = new Thread(() -> {
                await(go);
                try {
                    query(left.c(), update);
                    left.c().commit();
                    outcome.set("committed");
                } catch (SQLException e) {
                    outcome.set(e.getMessage());
                }
            });
            Thread reclaimer = new Thread(() -> {
                await(go);
                ds.scanNow();
            });
            b.start();
            reclaimer.start();
            go.countDown();
            b.join();
            reclaimer.join();
            left.c().close();
            var sql = stub(1).sql();
            if (outcome.get().equals("committed")) {
                assertThat(sql.subList(sql.size() - 3, sql.size())).as("round %d", i)
                        .containsExactly("INSERT " + i, update, "COMMIT");
            } else {
                assertThat(outcome.get()).as("round %d", i).startsWith("connection was reclaimed: ");
                assertThat(sql).as("round %d: B's call never ran", i).doesNotContain(update);
                assertThat(sql.subList(sql.size() - 2, sql.size())).as("round %d", i)
                        .containsExactly("INSERT " + i, "ROLLBACK");
            }
            assertThat(ds.getOpenHandles()).as("round %d", i).isZero();
            assertThat(ds.getPool().stats().inUse()).as("round %d", i).isZero();
        }
        System.out.println("first use racing the reclaim: " + ds.getReclaimedConnections() + " of " + rounds
                + " reclaimed, the rest kept by B");
    }
}
