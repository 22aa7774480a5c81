package dev.loompool.jdbc;

import static dev.loompool.jdbc.ReclaimerWaits.awaitScans;
import static dev.loompool.jdbc.ReclaimerWaits.gcUntil;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.stub.StubConnection;
import java.io.InputStream;
import java.sql.Blob;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Issue 38, item 3: a lent LOB checks that the binding it was made under still holds, then calls
 * the driver. A release of that binding (the handle's close on another thread, the reclaim of a
 * handle dropped without close) and the next borrower's binding of the same physical connection
 * must not fit between the two: A's call would run in B's session. The stub driver stops A's call
 * at the driver's entry (after the pool's check) to force the interleaving: the release then
 * either waits for A's call or is not made while it runs, and B's statements come after A's call
 * on the connection. Pool of one, so A and B share the physical connection.
 */
class LentObjectRaceTest extends StubSupport {

    /** A's call on its LOB, held at the driver's entry on its own thread, and how it ended. */
    private record Held(Thread thread, CountDownLatch arrived, CountDownLatch open, AtomicReference<Object> outcome) {

        /** Lets A's call into the driver and waits for it to end. */
        Object finish() throws InterruptedException {
            open.countDown();
            thread.join(30_000);
            assertThat(thread.isAlive()).as("A's call ended").isFalse();
            return outcome.get();
        }
    }

    @FunctionalInterface
    private interface LobCall {
        Object call() throws Exception;
    }

    /** Starts {@code call} on thread "lob-A", to be stopped at the entry of the driver's LOB call on {@code stub}. */
    private static Held hold(StubConnection stub, LobCall call) {
        CountDownLatch arrived = new CountDownLatch(1);
        CountDownLatch open = new CountDownLatch(1);
        AtomicReference<Object> outcome = new AtomicReference<>();
        stub.beforeNextLobCall(() -> {
            arrived.countDown();
            try {
                if (!open.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("never let in");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Thread t = new Thread(() -> {
            try {
                outcome.set(call.call());
            } catch (Throwable e) {
                outcome.set(e);
            }
        }, "lob-A");
        t.start();
        return new Held(t, arrived, open, outcome);
    }

    private static boolean inAwaitRuns(Thread t) {
        return Arrays.stream(t.getStackTrace()).anyMatch(f -> f.getMethodName().equals("awaitRuns"));
    }

    private LoomPoolDataSource poolOfOne() {
        LoomPoolDataSource ds = dataSource();
        ds.setMaxSize(1);
        ds.setValidationTimeout(Duration.ofSeconds(30)); // how long a close waits for a call under way
        return ds;
    }

    /** B's statement on the connection, in a transaction it keeps open: A's late call must not land in it. */
    private static Connection bInATransaction(LoomPoolDataSource ds) throws SQLException {
        Connection b = ds.getConnection();
        b.setAutoCommit(false);
        BindingTest.query(b, "SELECT 'B'");
        return b;
    }

    /** What reached stub connection 1, in order: A's LOB call must come before B's first statement. */
    private void aBeforeB(String aCall) {
        List<String> sql = stub(1).sql();
        assertThat(sql).as("what reached the connection").contains(aCall, "SELECT 'B'");
        assertThat(sql.indexOf(aCall)).as("A's %s reached the connection before B's statement: %s", aCall, sql)
                .isLessThan(sql.indexOf("SELECT 'B'"));
    }

    @Test
    void aLobCallUnderWayHoldsOffACloseOnAnotherThread() throws Exception {
        theCloseWaitsFor(blob -> blob::length, "Blob.length");
    }

    @Test
    void aStreamReadUnderWayHoldsOffACloseOnAnotherThread() throws Exception {
        theCloseWaitsFor(blob -> {
            InputStream in = blob.getBinaryStream(); // on A's own thread, before the race
            return in::read;
        }, "Blob.read");
    }

    /** Made on A's thread from its Blob: the call to hold at the driver's entry. */
    @FunctionalInterface
    private interface OnBlob {
        LobCall on(Blob blob) throws Exception;
    }

    /**
     * A holds a Blob; thread lob-A is inside a call on it (stopped at the driver's entry) when
     * another thread closes A's handle. B then borrows the connection and runs a statement in its
     * own transaction. A's call must reach the connection before B's statement: the close waits for
     * it (or, before the fix, gave the connection to B while A's call was still on its way).
     */
    private void theCloseWaitsFor(OnBlob call, String aCall) throws Exception {
        LoomPoolDataSource ds = poolOfOne();
        Connection a = ds.getConnection();
        Blob blob = a.createBlob(); // binds stub connection 1, pinned until the handle closes
        Held held = hold(stub(1), call.on(blob));
        assertThat(held.arrived().await(30, TimeUnit.SECONDS)).as("A's call reached the driver").isTrue();

        Thread closer = new Thread(() -> {
            try {
                a.close();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }, "closer");
        closer.start();
        eventually("the close is done, or waits for A's call", () -> !closer.isAlive() || inAwaitRuns(closer));
        Connection b;
        if (!closer.isAlive()) { // the connection went back while A's call was on its way
            b = bInATransaction(ds);
            held.finish();
        } else {
            held.finish();
            closer.join(30_000);
            b = bInATransaction(ds);
        }
        try {
            aBeforeB(aCall);
        } finally {
            b.rollback();
            b.close();
        }
    }

    /**
     * A drops its handle without close and keeps a Blob; thread lob-A is inside a call on it
     * (stopped at the driver's entry) while the collector and the reclaimer look for the dropped
     * handle. The handle must not be reclaimed while A's call runs on its connection, or B, bound
     * next, would have A's call land in its transaction. After A's call, the handle is found and its
     * connection reclaimed as usual.
     */
    @Test
    void aLobCallUnderWayIsNotReclaimedFromUnderIt() throws Exception {
        LoomPoolDataSource ds = poolOfOne();
        Blob blob = blobOfADroppedHandle(ds);
        awaitScans(3); // two scans saw the binding: the connection holds its handle weakly from now on
        Held held = hold(stub(1), blob::length);
        eventually("A's call reached the driver, or was refused", () -> held.arrived().getCount() == 0
                || !held.thread().isAlive());
        Connection b = null;
        for (int i = 0; i < 10 && ds.getReclaimedConnections() == 0; i++) {
            System.gc();
            awaitScans(1);
        }
        if (ds.getReclaimedConnections() == 1) { // reclaimed while A's call was on its way
            b = bInATransaction(ds);
        }
        Object outcome = held.finish();
        if (b == null) {
            gcUntil("A's dropped handle is reclaimed once its call ended", () -> ds.getReclaimedConnections() == 1);
            b = bInATransaction(ds);
        }
        try {
            if (outcome instanceof SQLException refused) { // the handle was gone before the call began
                assertThat((Throwable) refused).hasMessageContaining("belongs to a connection its handle no longer holds");
                assertThat(stub(1).sql()).doesNotContain("Blob.length");
            } else {
                aBeforeB("Blob.length");
            }
        } finally {
            b.rollback();
            b.close();
        }
    }

    /** A Blob whose handle was dropped, never closed: the handle is unreachable once this returns. */
    private static Blob blobOfADroppedHandle(LoomPoolDataSource ds) throws SQLException {
        Connection a = ds.getConnection();
        return a.createBlob();
    }
}
