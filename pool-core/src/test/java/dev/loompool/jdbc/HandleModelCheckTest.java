package dev.loompool.jdbc;

import static dev.loompool.ModelCheck.check;
import static dev.loompool.ModelCheck.runActors;

import dev.loompool.ModelCheck;
import dev.loompool.jdbc.internal.handle.Internals;
import dev.loompool.stub.StubDatabase;
import dev.loompool.stub.StubDriver;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/**
 * The JDBC handle's binding, model-checked (DESIGN.md §6): one handle of a pool of one (the stub
 * driver), shared by two or three threads, each a few JDBC calls; Lincheck enumerates their
 * interleavings. A {@link SQLException} ("connection is closed", "statement is closed") is a legal
 * outcome of any call; anything else thrown fails. Once every thread is done, it checks:
 * <ul>
 *   <li>a bound handle shows why in {@code pinReasons()} (no statement runs any more);</li>
 *   <li>once the handle and its statements are closed, the pool has none in use and a second
 *       {@code getConnection()} gets the connection.</li>
 * </ul>
 */
@EnabledForJreRange(max = JRE.JAVA_21, disabledReason = "Lincheck 3.7 on JDK 25: every scenario reports"
        + " 'Concurrent test has hung' with no reproducible interleaving, at 3-4x the JDK 17 run time")
class HandleModelCheckTest {

    private static final int INVOCATIONS = 40;
    private static final AtomicInteger DATABASE_NUMBER = new AtomicInteger();

    /** A JDBC call whose SQLException is a legal outcome. */
    @FunctionalInterface
    private interface Call {
        void run() throws SQLException;
    }

    private static void legal(Call call) {
        try {
            call.run();
        } catch (SQLException outcome) {
            // closed handle or statement: a result, not a failure
        }
    }

    private static LoomPoolDataSource poolOfOne() {
        return pool(1);
    }

    private static LoomPoolDataSource pool(int maxSize) {
        StubDatabase db = StubDriver.database("mc" + DATABASE_NUMBER.incrementAndGet());
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(db.url());
        ds.setPoolName("model-check-" + db.name());
        ds.setMinSize(0);
        ds.setMaxSize(maxSize);
        ds.setAcquireTimeout(Duration.ofSeconds(5));
        // No housekeeping thread: the checker must schedule every thread that touches the pool.
        ds.setHealthcheckInterval(Duration.ZERO);
        ds.setIdleTimeout(Duration.ZERO);
        ds.setMaxLifetime(Duration.ZERO);
        // The system clock without its coarse reading's thread (loompool-clock), which, started
        // inside a scenario, would tick on after it and read as a hang: the coarse reading is the clock's own.
        ds.setClock(System::nanoTime);
        return ds;
    }

    private static void query(Statement st) throws SQLException {
        try (ResultSet rs = st.executeQuery("SELECT 1")) {
            rs.next();
        }
    }

    /** Once all threads are done: the invariant, then everything closed and the connection free again. */
    private static void checkDone(LoomPoolDataSource ds, Connection c, LoomConnection handle, Statement... statements) {
        check(!handle.isBound() || !handle.pinReasons().isEmpty(),
                "a bound handle shows a pin reason once no statement runs, but pinReasons() is "
                        + handle.pinReasons());
        for (Statement st : statements) {
            legal(st::close);
        }
        legal(c::close);
        int inUse = ds.getPool().stats().inUse();
        check(inUse == 0, "none in use once the handle and its statements are closed, not " + inUse);
        try (Connection second = ds.getConnection()) {
            check(!second.isClosed(), "a second handle is open");
        } catch (SQLException e) {
            throw new AssertionError("a second getConnection failed: " + e, e);
        }
    }

    /**
     * Model-checks {@code scenario} on one started pool of one: the pool's start (the driver
     * registry, the URL's secrets, its background threads) is no part of the scenario, and done
     * before the checker watches; each interleaving borrows the pool's one connection and must
     * leave it free.
     */
    private static void modelCheck(Scenario scenario) {
        modelCheck(1, scenario);
    }

    /** As {@link #modelCheck(Scenario)}, on a pool of {@code maxSize}, every connection made before the checker watches. */
    private static void modelCheck(int maxSize, Scenario scenario) {
        LoomPoolDataSource ds = pool(maxSize);
        try {
            for (int i = 1; i < maxSize; i++) { // the others made and idle: the scenario connects nothing
                try (Connection held = ds.getConnection(); Connection other = ds.getConnection()) {
                    held.setAutoCommit(false);
                    other.setAutoCommit(false);
                    query(held.createStatement());
                    query(other.createStatement());
                    held.rollback();
                    other.rollback();
                } catch (SQLException e) {
                    throw new AssertionError(e);
                }
            }
            try (Connection warm = ds.getConnection(); Statement st = warm.createStatement()) {
                // started, its one connection made and idle, and the classes of the calls loaded
                query(st);
                warm.setAutoCommit(false);
                query(st);
                warm.commit();
                warm.rollback();
                Internals.stopPeriodicScans(warm); // scans run only where a scenario asks (scanNow)
                // The JDK's one delay thread (ForeignRelease's timer), started before the checker
                // watches: started inside, it would outlive the scenario and read as a hang.
                CompletableFuture.delayedExecutor(1, TimeUnit.MILLISECONDS).execute(() -> { });
            } catch (SQLException e) {
                throw new AssertionError(e);
            }
            ModelCheck.run(INVOCATIONS, () -> {
                try {
                    scenario.run(ds);
                } catch (SQLException e) {
                    throw new AssertionError("the scenario's setup failed: " + e, e);
                }
            });
        } finally {
            ds.close();
        }
    }

    @FunctionalInterface
    private interface Scenario {
        void run(LoomPoolDataSource ds) throws SQLException;
    }

    /**
     * A statement made on the main thread runs a query on one thread and is closed on another.
     * Before issue 37's fix the checker found (in the plain order: thread 1's query and result-set
     * close, then thread 2's statement close) that the close read the connection's runner, still
     * thread 1 after its query ended, took the "running on another thread" path, untracked the
     * statement and left the handle bound with {@code pinReasons()} empty. Now the close lets the
     * connection go unless a run of the handle is under way, whose end then does: every
     * interleaving ends unbound.
     */
    @Test
    void aStatementRunOnOneThreadAndClosedOnAnotherLeavesNoSilentBinding() {
        modelCheck(ds -> {
            Connection c = ds.getConnection();
            LoomConnection handle = c.unwrap(LoomConnection.class);
            Statement st = c.createStatement();
            runActors(
                    () -> legal(() -> query(st)),
                    () -> legal(st::close));
            checkDone(ds, c, handle, st);
        });
    }

    /**
     * Two threads find one handle unbound and run a query each, on a pool of two: each acquires a
     * connection. Before issue 39's fix both bound theirs, the later overwrote the earlier, which
     * stayed lent past the handle's close (found by an attack test in 28 of 30 runs; with the claim
     * taken out, the checker fails this scenario within its 40 invocations). Now one
     * binds and the other gives its connection back and runs on that binding: once the handle is
     * closed (and its statements with it), none is in use.
     */
    @Test
    @Disabled("not a finding: in the full suite Lincheck 3.7 throws a ConcurrentModificationException from its own"
            + " runConcurrentTest (alone it passes, and fails with the claim taken out); HandleAcrossThreadsTest"
            + "#twoThreadsBindingOneHandleAtOnceLeaveNoConnectionBehind covers the rule on real databases")
    void twoThreadsBindingOneUnboundHandleAtOnceLeaveNoConnectionLent() {
        modelCheck(2, ds -> {
            Connection c = ds.getConnection();
            LoomConnection handle = c.unwrap(LoomConnection.class);
            Statement first = c.createStatement();
            Statement second = c.createStatement();
            runActors(
                    () -> legal(() -> query(first)),
                    () -> legal(() -> query(second)));
            checkDone(ds, c, handle); // the handle's close closes both statements
        });
    }

    /**
     * A metadata call (a run that tracks nothing) on one thread while another closes the handle's
     * only statement: the release that close makes ends the binding, then finds the run and waits
     * for it, so the connection never goes back under the metadata call; every interleaving ends
     * unbound and free.
     */
    @Test
    void aMetadataCallOnOneThreadAndTheLastStatementClosedOnAnotherLeaveTheConnectionFree() {
        modelCheck(ds -> {
            Connection c = ds.getConnection();
            LoomConnection handle = c.unwrap(LoomConnection.class);
            Statement st = c.createStatement();
            runActors(
                    () -> legal(() -> c.getMetaData().getURL()),
                    () -> legal(st::close));
            checkDone(ds, c, handle, st);
        });
    }

    /**
     * Three threads on one handle: one runs a query on a statement of its own (create, executeQuery,
     * close the result set and the statement), one opens and commits a transaction then rolls
     * back, and one closes a statement made earlier on the main thread, then the handle, then
     * runs a reclaimer scan.
     */
    @Test
    @Disabled("issue 37: thread 1's query leaves it the connection's runner after it ended, so thread 3's handle close"
            + " takes the foreign-release path (ForeignRelease.settle, whose JDK delay timer the checker then trips on:"
            + " a hang, or an NPE in Lincheck 3.7's SnapshotTracker.restoreValues); enable with the handle fix")
    void queriesTransactionsAndClosesOnThreeThreadsLeaveTheConnectionFree() {
        modelCheck(ds -> {
            Connection c = ds.getConnection();
            LoomConnection handle = c.unwrap(LoomConnection.class);
            Statement earlier = c.createStatement();
            runActors(
                    () -> legal(() -> {
                        try (Statement st = c.createStatement()) {
                            query(st);
                        }
                    }),
                    () -> {
                        legal(() -> {
                            c.setAutoCommit(false);
                            c.commit();
                        });
                        legal(c::rollback);
                    },
                    () -> {
                        legal(earlier::close);
                        legal(c::close);
                        ds.scanNow();
                    });
            checkDone(ds, c, handle, earlier);
        });
    }

    /**
     * Two threads use one handle at the same moment, as a forked subtask beside its parent: one
     * runs a query on a statement of its own, the other begins and commits a transaction. Each
     * changes the handle's pins (the statement's, the transaction's) while the other may be
     * changing them or deciding the release. Before the handle's lock, an interleaving lost one
     * change: the handle stayed bound for a statement long closed, or the release ran with the
     * transaction's pin just added. Once both are done (autocommit back on, the statement closed)
     * nothing may hold the connection.
     */
    @Test
    void aQueryAndATransactionOnOneHandleAtOnceLeaveItUnbound() {
        modelCheck(ds -> {
            Connection c = ds.getConnection();
            LoomConnection handle = c.unwrap(LoomConnection.class);
            runActors(
                    () -> legal(() -> {
                        try (Statement st = c.createStatement()) {
                            query(st);
                        }
                    }),
                    () -> legal(() -> {
                        c.setAutoCommit(false);
                        c.commit();
                        c.setAutoCommit(true);
                    }));
            check(!handle.isBound(), "both threads done, nothing open, autocommit on: the handle is unbound, but it"
                    + " is bound with pinReasons() " + handle.pinReasons());
            checkDone(ds, c, handle);
        });
    }

    /**
     * Two threads on one handle, no query: one opens and commits a transaction then rolls back,
     * the other closes a statement made earlier on the main thread, then the handle, then runs a
     * reclaimer scan.
     */
    @Test
    @Disabled("not a finding: Lincheck 3.7 fails on the class path while snapshotting JDK lambdas"
            + " (InaccessibleObjectException on java.lang.ProcessHandleImpl's; with --add-opens, an NPE in"
            + " SnapshotTracker.restoreValues on the pool started before the scenario)")
    void transactionsAndClosesOnTwoThreadsLeaveTheConnectionFree() {
        modelCheck(ds -> {
            Connection c = ds.getConnection();
            LoomConnection handle = c.unwrap(LoomConnection.class);
            Statement earlier = c.createStatement();
            runActors(
                    () -> {
                        legal(() -> {
                            c.setAutoCommit(false);
                            c.commit();
                        });
                        legal(c::rollback);
                    },
                    () -> {
                        legal(earlier::close);
                        legal(c::close);
                        ds.scanNow();
                    });
            checkDone(ds, c, handle, earlier);
        });
    }
}
