package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The cases of {@link MariaDbStaleWireTest} on PostgreSQL: pgjdbc's transaction state is current
 * after an error (ReadyForQuery follows every ErrorResponse), but it is updated only at
 * ReadyForQuery, so a close on another thread during a statement reads it stale too.
 */
class PostgresStaleWireTest extends HostileSupport {

    private LoomPoolDataSource one(Duration acquire) {
        LoomPoolDataSource ds = pg(1);
        ds.setAcquireTimeout(acquire);
        return ds;
    }

    static boolean sleeping(long pid) {
        try (Connection c = TestDatabase.POSTGRES.admin()) {
            return num(c, "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%pg_sleep%' AND pid = "
                    + pid) == 1;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private void idleHandleAfterAnErrorDoesNotKeepTheConnection(MariaDbStaleWireTest.ThrowingConsumer failing) throws Exception {
        LoomPoolDataSource ds = one(Duration.ofSeconds(3));
        try (Connection a = ds.getConnection()) {
            long pidA = pgPidUnpinned(a);
            failing.accept(a, pidA);
            assertThat(a.unwrap(LoomConnection.class).isBound()).as("A is idle: no transaction, no statement").isFalse();
            try (Connection b = ds.getConnection()) {
                assertThat(pgPidUnpinned(b)).as("B gets the pool's only connection").isEqualTo(pidA);
            }
        }
    }

    @Test
    void aFailedStatementLeavesNoTransactionPinOnAnIdleHandle() throws Exception {
        idleHandleAfterAnErrorDoesNotKeepTheConnection((a, id) ->
                assertThatThrownBy(() -> run(a, "SELECT * FROM missing_table_" + tag)).isInstanceOf(SQLException.class));
    }

    @Test
    void aQueryTimeoutLeavesNoTransactionPinOnAnIdleHandle() throws Exception {
        idleHandleAfterAnErrorDoesNotKeepTheConnection((a, id) -> {
            try (Statement st = a.createStatement()) {
                st.setQueryTimeout(1);
                assertThatThrownBy(() -> st.execute("SELECT pg_sleep(5)")).isInstanceOf(SQLException.class);
            }
        });
    }

    @Test
    void aCancelledStatementLeavesNoTransactionPinOnAnIdleHandle() throws Exception {
        idleHandleAfterAnErrorDoesNotKeepTheConnection((a, id) -> {
            try (Statement st = a.createStatement()) {
                CompletableFuture<Void> cancel = CompletableFuture.runAsync(() -> {
                    try {
                        MariaDbStaleWireTest.eventually("A sleeps", () -> sleeping(id));
                        st.cancel();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                assertThatThrownBy(() -> st.execute("SELECT pg_sleep(10)")).isInstanceOf(SQLException.class);
                cancel.get(15, TimeUnit.SECONDS);
            }
        });
    }

    /** A watchdog closes A's handle during the first statement of A's transaction: nothing of A commits. */
    @Test
    void aWatchdogCloseDuringTheFirstStatementOfATransactionRollsItBack() throws Exception {
        pgTable();
        LoomPoolDataSource ds = one(Duration.ofSeconds(10));
        Connection a = ds.getConnection();
        long pidA = pgPid(a);
        a.setAutoCommit(false);
        Thread owner = new Thread(() -> {
            try (Statement st = a.createStatement()) {
                st.execute("INSERT INTO " + table + " SELECT 1 FROM pg_sleep(2)");
            } catch (SQLException expected) {
                // the watchdog's close may cut it
            }
        }, "owner-A");
        owner.start();
        MariaDbStaleWireTest.eventually("A's insert sleeps", () -> sleeping(pidA));
        a.close(); // the watchdog
        owner.join(15_000);
        try (Connection b = ds.getConnection()) {
            run(b, "SELECT 1");
        }
        assertThat(pgRows()).as("A never committed").isZero();
    }

    /** A watchdog closes A's handle during {@code SELECT pg_sleep(2); BEGIN}: B's autocommit insert commits. */
    @Test
    void aWatchdogCloseDuringAMultiStatementThatBeginsATransactionDoesNotLendItsTransaction() throws Exception {
        pgTable();
        LoomPoolDataSource ds = one(Duration.ofSeconds(10));
        Connection a = ds.getConnection();
        long pidA = pgPid(a);
        Thread owner = new Thread(() -> {
            try (Statement st = a.createStatement()) {
                st.execute("SELECT pg_sleep(2); BEGIN");
            } catch (SQLException expected) {
                // the close may cut it
            }
        }, "owner-A");
        owner.start();
        MariaDbStaleWireTest.eventually("A sleeps", () -> sleeping(pidA));
        a.close(); // the watchdog
        try (Connection b = ds.getConnection()) {
            run(b, "INSERT INTO " + table + " VALUES (2)");
        }
        owner.join(15_000);
        assertThat(pgRows()).as("B's autocommit insert is committed").isEqualTo(1);
    }

    /** Statement.close() on another thread while its query runs: the connection is not lent meanwhile. */
    @Test
    void aForeignStatementCloseDoesNotLendTheConnectionWhileItsQueryRuns() throws Exception {
        LoomPoolDataSource ds = one(Duration.ofSeconds(10));
        Connection a = ds.getConnection();
        long pidA = pgPid(a);
        Statement st = a.createStatement();
        Thread owner = new Thread(() -> {
            try {
                st.execute("SELECT pg_sleep(2)");
            } catch (SQLException expected) {
                // the close may cut it
            }
        }, "owner-A");
        owner.start();
        MariaDbStaleWireTest.eventually("A sleeps", () -> sleeping(pidA));
        st.close(); // another thread
        boolean lendable = !a.unwrap(LoomConnection.class).isBound();
        assertThat(lendable && sleeping(pidA)).as("the connection is free to lend while A's query still runs").isFalse();
        owner.join(15_000);
        a.close();
    }
}
