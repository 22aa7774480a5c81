package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.ThreadedBorrowerScenarios.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static dev.loompool.jdbc.HandleAcrossThreadsTest.boundOnlyForAReason;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Session state (a temporary table, an advisory lock, the isolation by JDBC and by SQL) set on
 * several threads and the handle closed on yet another (DESIGN.md §4 "Session-state pin", "Reset on
 * return"): the handle shows SESSION_STATE while bound, and B's session has none of it.
 */
class SessionStateSetOnSeveralThreadsTest extends OnRealDatabases {

    /**
     * A temporary table and a session advisory lock taken by A on a CompletableFuture, the handle
     * closed on a third thread: B sees neither (no temp table, the lock is free for another
     * session), and A's handle showed SESSION_STATE while bound.
     */
    @Test
    void pgTempTableAndAdvisoryLockTakenOnAFutureClosedOnAThirdThreadAreGoneForB() throws Exception {
        LoomPoolDataSource ds = one(TestDatabase.POSTGRES);
        Connection a = ds.getConnection();
        long key = Math.abs(tag.hashCode());
        CompletableFuture.runAsync(() -> {
            try {
                run(a, "CREATE TEMP TABLE atk2_tmp_" + tag + " (x int)");
                run(a, "SELECT pg_advisory_lock(" + key + ")");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }).get(10, TimeUnit.SECONDS);
        boundOnlyForAReason(a);
        assertThat(a.unwrap(LoomConnection.class).pinReasons()).contains(PinReason.SESSION_STATE);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        other("closer", a::close, failure).join(15_000);
        assertThat(failure.get()).isNull();
        try (Connection b = ds.getConnection()) {
            assertThat(num(b, "SELECT count(*) FROM pg_class WHERE relname = 'atk2_tmp_" + tag + "' AND relpersistence = 't'"))
                    .as("A's temp table, seen by B").isZero();
            cleanSession(TestDatabase.POSTGRES, b);
        }
        try (Connection other = TestDatabase.POSTGRES.admin()) {
            assertThat(str(other, "SELECT pg_try_advisory_lock(" + key + ")::text")).as("A's session lock is released").isEqualTo("true");
        }
        assertThat(ds.getOpenHandles()).isZero();
    }

    /**
     * Isolation set on one thread by JDBC ({@code setTransactionIsolation}) and on another by SQL
     * ({@code SET SESSION …}), statements on a third, the handle closed on a fourth: B's session has
     * the default isolation. Plain driver: the settings stay on A's own session.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void isolationSetByJdbcAndBySqlOnTwoThreadsClosedOnAThirdIsResetForB(TestDatabase db) throws Exception {
        LoomPoolDataSource ds = one(db);
        Connection a = ds.getConnection();
        CompletableFuture.runAsync(() -> {
            try {
                a.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }).get(10, TimeUnit.SECONDS);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        other("sql", () -> run(a, db == TestDatabase.POSTGRES
                ? "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ"
                : "SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED"), failure).join(15_000);
        other("reader", () -> assertThat(a.getTransactionIsolation()).isIn(Connection.TRANSACTION_REPEATABLE_READ,
                Connection.TRANSACTION_READ_UNCOMMITTED), failure).join(15_000);
        boundOnlyForAReason(a);
        other("closer", a::close, failure).join(15_000);
        assertThat(failure.get()).isNull();
        try (Connection b = ds.getConnection()) {
            cleanSession(db, b);
            assertThat(b.getTransactionIsolation()).as("B's isolation, as the handle says").isEqualTo(
                    db == TestDatabase.POSTGRES ? Connection.TRANSACTION_READ_COMMITTED : Connection.TRANSACTION_REPEATABLE_READ);
        }
        assertThat(ds.getOpenHandles()).isZero();
    }
}
