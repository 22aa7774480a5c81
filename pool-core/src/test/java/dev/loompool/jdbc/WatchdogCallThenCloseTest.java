package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * From a review attack (issue 26): the close from another thread is "foreign" only if its thread is
 * not the connection's runner. A watchdog that cleans up the usual way, {@code rollback()} then
 * {@code close()}, becomes the runner with its rollback(), so its close is treated as the user's
 * own: no wait, no retirement, while A's commit() is on its way to the driver ({@link GateDriver}).
 */
class WatchdogCallThenCloseTest extends HostileSupport {

    @AfterEach
    void disarm() {
        GateDriver.gate = null;
    }

    private LoomPoolDataSource gated() {
        LoomPoolDataSource ds = maria(1);
        ds.setJdbcUrl(GateDriver.PREFIX + TestDatabase.MARIADB.url() + "&allowMultiQueries=true");
        ds.setDriverClassName(GateDriver.class.getName());
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        return ds;
    }

    private String rows() throws SQLException {
        try (Connection admin = TestDatabase.MARIADB.admin()) {
            return str(admin, "SELECT coalesce(group_concat(v ORDER BY v), 'none') FROM " + table);
        }
    }

    /**
     * A inserts 1 and calls commit(); as A's commit() is on its way to the driver, a watchdog runs
     * {@code a.rollback(); a.close()}. B (maxSize 1) gets the connection, inserts 2 in its own
     * transaction and rolls back. B's 2 must never be committed.
     */
    @Test
    void aWatchdogRollbackThenCloseLetsAsCommitCommitTheNextBorrowersTransaction() throws Exception {
        mariaTable();
        LoomPoolDataSource ds = gated();
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        run(a, "INSERT INTO " + table + " (v) VALUES (1)");
        AtomicReference<Throwable> commitFailure = new AtomicReference<>();
        Thread owner = new Thread(() -> {
            try {
                a.commit();
            } catch (Throwable e) {
                commitFailure.set(e);
            }
        }, "owner-A");
        GateDriver.Gate gate = GateDriver.arm("commit", owner);
        owner.start();
        assertThat(gate.arrived().await(10, TimeUnit.SECONDS)).isTrue();
        try { // the watchdog's cleanup, on another thread
            a.rollback();
        } finally {
            a.close();
        }
        Connection b = ds.getConnection();
        b.setAutoCommit(false);
        run(b, "INSERT INTO " + table + " (v) VALUES (2)");
        gate.open().countDown();
        owner.join(15_000);
        b.rollback();
        b.close();
        assertThat(rows()).as("B rolled back its 2 (A's commit() " + (commitFailure.get() == null ? "returned normally"
                : "threw " + commitFailure.get()) + ")").doesNotContain("2");
    }


    /**
     * A inserts 1 and calls commit(); as A's commit() is on its way to the driver, a watchdog runs
     * {@code a.getMetaData().getURL(); a.close()} (it logs where the connection goes first). B (maxSize 1) gets the connection, inserts 2 in its own
     * transaction and rolls back. B's 2 must never be committed.
     */
    @Test
    void aWatchdogThatLogsTheUrlBeforeClosingLetsAsCommitCommitTheNextBorrowersTransaction() throws Exception {
        mariaTable();
        LoomPoolDataSource ds = gated();
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        run(a, "INSERT INTO " + table + " (v) VALUES (1)");
        AtomicReference<Throwable> commitFailure = new AtomicReference<>();
        Thread owner = new Thread(() -> {
            try {
                a.commit();
            } catch (Throwable e) {
                commitFailure.set(e);
            }
        }, "owner-A");
        GateDriver.Gate gate = GateDriver.arm("commit", owner);
        owner.start();
        assertThat(gate.arrived().await(10, TimeUnit.SECONDS)).isTrue();
        System.out.println("closing a stuck connection to " + a.getMetaData().getURL()); // the watchdog logs, then closes
        a.close();
        Connection b = ds.getConnection();
        b.setAutoCommit(false);
        run(b, "INSERT INTO " + table + " (v) VALUES (2)");
        gate.open().countDown();
        owner.join(15_000);
        b.rollback();
        b.close();
        assertThat(rows()).as("B rolled back its 2 (A's commit() " + (commitFailure.get() == null ? "returned normally"
                : "threw " + commitFailure.get()) + ")").doesNotContain("2");
    }

    /**
     * A inserts 1 and calls commit(); as A's commit() is on its way to the driver, a watchdog runs
     * {@code a.isValid(1); a.close()}. B (maxSize 1) gets the connection, inserts 2 in its own
     * transaction and rolls back. B's 2 must never be committed.
     */
    @Test
    void aWatchdogThatChecksIsValidBeforeClosingLetsAsCommitCommitTheNextBorrowersTransaction() throws Exception {
        mariaTable();
        LoomPoolDataSource ds = gated();
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        run(a, "INSERT INTO " + table + " (v) VALUES (1)");
        AtomicReference<Throwable> commitFailure = new AtomicReference<>();
        Thread owner = new Thread(() -> {
            try {
                a.commit();
            } catch (Throwable e) {
                commitFailure.set(e);
            }
        }, "owner-A");
        GateDriver.Gate gate = GateDriver.arm("commit", owner);
        owner.start();
        assertThat(gate.arrived().await(10, TimeUnit.SECONDS)).isTrue();
        System.out.println("valid: " + a.isValid(1)); // the watchdog checks the connection, then closes it
        a.close();
        Connection b = ds.getConnection();
        b.setAutoCommit(false);
        run(b, "INSERT INTO " + table + " (v) VALUES (2)");
        gate.open().countDown();
        owner.join(15_000);
        b.rollback();
        b.close();
        assertThat(rows()).as("B rolled back its 2 (A's commit() " + (commitFailure.get() == null ? "returned normally"
                : "threw " + commitFailure.get()) + ")").doesNotContain("2");
    }
}
