package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.ThreadedBorrowerScenarios.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static dev.loompool.jdbc.HandleAcrossThreadsTest.boundOnlyForAReason;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One transaction begun, written, committed or rolled back on several threads (DESIGN.md §4 "One
 * state machine, every thread", "Transaction pin"): what is committed is what the plain driver
 * commits, and B, next on the pool's one connection, gets a clean session.
 */
class TransactionSpreadOverThreadsTest extends OnRealDatabases {

    /** Commit on the caller's thread while a helper's insert still runs: what the plain driver commits, and B clean. */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void commitWhileAnotherThreadsInsertRunsCommitsWhatThePlainDriverCommits(TestDatabase db) throws Exception {
        table(db);
        LoomPoolDataSource ds = one(db);
        String slowInsert = db == TestDatabase.POSTGRES
                ? "INSERT INTO " + table + " SELECT 2 FROM pg_sleep(1)"
                : "INSERT INTO " + table + " (v) SELECT 2 FROM (SELECT SLEEP(1)) s";
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            run(a, insertOf(db, 1));
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread helper = other("helper", () -> run(a, slowInsert), failure);
            awaitRunning(db, sleepMarker(db, 1));
            a.commit(); // waits for the driver's lock: commits both, as the plain driver does
            helper.join(15_000);
            assertThat(failure.get()).isNull();
            boundOnlyForAReason(a);
            assertThat(committed(db)).isEqualTo("1,2");
            run(a, insertOf(db, 3)); // a new transaction, never committed
            boundOnlyForAReason(a);
        }
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, inTx(db))).isEqualTo(db == TestDatabase.POSTGRES ? null : "none");
            assertThat(b.getAutoCommit()).isTrue();
        }
        assertThat(committed(db)).isEqualTo("1,2");
    }

    /** Begun on one thread, written on a future and an executor, rolled back on a third: nothing committed, B clean. */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aTransactionSpreadOverThreadsAndRolledBackElsewhereCommitsNothing(TestDatabase db) throws Exception {
        table(db);
        LoomPoolDataSource ds = one(db);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Connection a = ds.getConnection();
            pool.submit(() -> {
                a.setAutoCommit(false);
                return null;
            }).get(10, TimeUnit.SECONDS);
            CompletableFuture.runAsync(() -> {
                try {
                    run(a, insertOf(db, 1));
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }).get(10, TimeUnit.SECONDS);
            boundOnlyForAReason(a);
            assertThat(a.unwrap(LoomConnection.class).pinReasons()).contains(PinReason.TRANSACTION);
            pool.submit(() -> {
                run(a, insertOf(db, 2));
                return null;
            }).get(10, TimeUnit.SECONDS);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            other("rollbacker", a::rollback, failure).join();
            assertThat(failure.get()).isNull();
            boundOnlyForAReason(a);
            other("closer", a::close, failure).join();
            assertThat(failure.get()).isNull();
        } finally {
            pool.shutdownNow();
        }
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, inTx(db))).isEqualTo(db == TestDatabase.POSTGRES ? null : "none");
            assertThat(b.getAutoCommit()).isTrue();
        }
        assertThat(committed(db)).isEqualTo(none(db));
    }

    /** Two threads execute on the same handle at once in one transaction; committed on a third: both rows. */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void twoThreadsExecutingAtOnceInOneTransactionCommitBoth(TestDatabase db) throws Exception {
        table(db);
        LoomPoolDataSource ds = one(db);
        String slowInsert = db == TestDatabase.POSTGRES
                ? "INSERT INTO " + table + " SELECT 1 FROM pg_sleep(1)"
                : "INSERT INTO " + table + " (v) SELECT 1 FROM (SELECT SLEEP(1)) s";
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t1 = other("t1", () -> run(a, slowInsert), failure);
        awaitRunning(db, sleepMarker(db, 1));
        Thread t2 = other("t2", () -> run(a, insertOf(db, 2)), failure);
        t1.join(15_000);
        t2.join(15_000);
        assertThat(failure.get()).isNull();
        boundOnlyForAReason(a);
        other("committer", a::commit, failure).join();
        assertThat(failure.get()).isNull();
        a.close();
        assertThat(committed(db)).isEqualTo("1,2");
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, inTx(db))).isEqualTo(db == TestDatabase.POSTGRES ? null : "none");
        }
    }
}
