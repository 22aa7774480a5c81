package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * From a review attack (issue 26): commit() and rollback() read the handle's physical connection and call the driver on
 * it with no check that the binding still holds and nothing the foreign close could wait for. A
 * watchdog's close between the two gives the connection to B; A's commit() or rollback() then
 * lands in B's transaction. {@link GateDriver} holds A's thread at the entry of the
 * driver's commit()/rollback() (before the driver's lock) so that the close comes in between.
 */
class LateConnectionCallTest extends HostileSupport {

    private LoomPoolDataSource gated() {
        LoomPoolDataSource ds = maria(1);
        ds.setJdbcUrl(GateDriver.PREFIX + TestDatabase.MARIADB.url() + "&allowMultiQueries=true");
        ds.setDriverClassName(GateDriver.class.getName());
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        return ds;
    }

    private static String rows(String table) throws SQLException {
        try (Connection admin = TestDatabase.MARIADB.admin()) {
            return str(admin, "SELECT coalesce(group_concat(v ORDER BY v), 'none') FROM " + table);
        }
    }

    /**
     * A inserts 1 and commits; a watchdog closes A's handle as A's commit() is on its way to the
     * driver. B (maxSize 1) gets the connection, inserts 2 in its own transaction and rolls back.
     * What may be committed: A's 1 if A's commit() returned normally, and never B's 2.
     */
    @Test
    void aCommitOvertakenByAWatchdogCloseCommitsTheNextBorrowersTransaction() throws Exception {
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
        a.close(); // the watchdog, on another thread
        Connection b = ds.getConnection();
        b.setAutoCommit(false);
        run(b, "INSERT INTO " + table + " (v) VALUES (2)");
        gate.open().countDown();
        owner.join(15_000);
        b.rollback();
        b.close();
        String committed = rows(table);
        assertThat(committed).as("B rolled back its 2 (A's commit() " + (commitFailure.get() == null ? "returned normally"
                : "threw " + commitFailure.get()) + ")").doesNotContain("2");
        if (commitFailure.get() == null) {
            assertThat(committed).as("A's commit() returned normally: A's 1 is committed").contains("1");
        }
    }

    /**
     * A inserts 1 and rolls back; a watchdog closes A's handle as A's rollback() is on its way to
     * the driver. B gets the connection, inserts 2 and 3 in its transaction, A's rollback lands,
     * B commits: B's rows must all be committed.
     */
    @Test
    void aRollbackOvertakenByAWatchdogCloseRollsBackTheNextBorrowersWork() throws Exception {
        mariaTable();
        LoomPoolDataSource ds = gated();
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        run(a, "INSERT INTO " + table + " (v) VALUES (1)");
        Thread owner = new Thread(() -> {
            try {
                a.rollback();
            } catch (Throwable e) {
                // may fail: closed
            }
        }, "owner-A");
        GateDriver.Gate gate = GateDriver.arm("rollback", owner);
        owner.start();
        assertThat(gate.arrived().await(10, TimeUnit.SECONDS)).isTrue();
        a.close(); // the watchdog, on another thread
        Connection b = ds.getConnection();
        b.setAutoCommit(false);
        run(b, "INSERT INTO " + table + " (v) VALUES (2)");
        gate.open().countDown();
        owner.join(15_000);
        run(b, "INSERT INTO " + table + " (v) VALUES (3)");
        b.commit();
        b.close();
        assertThat(rows(table)).as("B committed 2 and 3").isEqualTo("2,3");
    }

    /**
     * A's setAutoCommit(true) (which commits) overtaken by a watchdog's close: B, autocommit off,
     * inserts 2; A's call lands; B inserts 3 and rolls back. Nothing of B's may be committed.
     */
    @Test
    void aSetAutoCommitOvertakenByAWatchdogCloseCommitsTheNextBorrowersTransactionAndSwitchesItToAutocommit()
            throws Exception {
        mariaTable();
        LoomPoolDataSource ds = gated();
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        run(a, "INSERT INTO " + table + " (v) VALUES (1)");
        Thread owner = new Thread(() -> {
            try {
                a.setAutoCommit(true);
            } catch (Throwable e) {
                // may fail: closed
            }
        }, "owner-A");
        GateDriver.Gate gate = GateDriver.arm("setAutoCommit", owner);
        owner.start();
        assertThat(gate.arrived().await(10, TimeUnit.SECONDS)).isTrue();
        a.close(); // the watchdog, on another thread
        Connection b = ds.getConnection();
        b.setAutoCommit(false);
        run(b, "INSERT INTO " + table + " (v) VALUES (2)");
        gate.open().countDown();
        owner.join(15_000);
        run(b, "INSERT INTO " + table + " (v) VALUES (3)");
        b.rollback();
        b.close();
        assertThat(rows(table)).as("B rolled back 2 and 3; A's 1 is committed or not").isIn("none", "1");
    }

    /**
     * A's setAutoCommit(false), made while A's handle is bound (an open statement), overtaken by a
     * watchdog's close: B (autocommit) inserts 2, A's call lands on B's connection, B inserts 3
     * and closes. B's autocommit inserts must both be committed.
     */
    @Test
    void aSetAutoCommitFalseOvertakenByAWatchdogCloseTurnsTheNextBorrowersAutocommitWorkIntoARolledBackTransaction()
            throws Exception {
        mariaTable();
        LoomPoolDataSource ds = gated();
        Connection a = ds.getConnection();
        java.sql.Statement open = a.createStatement(); // keeps A bound
        Thread owner = new Thread(() -> {
            try {
                a.setAutoCommit(false);
            } catch (Throwable e) {
                // may fail: closed
            }
        }, "owner-A");
        GateDriver.Gate gate = GateDriver.arm("setAutoCommit", owner);
        owner.start();
        assertThat(gate.arrived().await(10, TimeUnit.SECONDS)).isTrue();
        a.close(); // the watchdog, on another thread
        assertThat(open.isClosed()).isTrue();
        try (Connection b = ds.getConnection()) {
            run(b, "INSERT INTO " + table + " (v) VALUES (2)");
            gate.open().countDown();
            owner.join(15_000);
            run(b, "INSERT INTO " + table + " (v) VALUES (3)");
        }
        assertThat(rows(table)).as("B's autocommit inserts are committed").isEqualTo("2,3");
    }

    /**
     * A's setTransactionIsolation(READ_UNCOMMITTED), made while A is bound, overtaken by a
     * watchdog's close: the setting lands on the connection after it went back, where no reset
     * sees it. Every later borrower must still run at the server's default isolation.
     */
    @Test
    void anIsolationChangeOvertakenByAWatchdogCloseLeaksToEveryLaterBorrower() throws Exception {
        LoomPoolDataSource ds = gated();
        String initial;
        try (Connection warm = ds.getConnection()) {
            initial = str(warm, "SELECT @@session.tx_isolation");
        }
        Connection a = ds.getConnection();
        java.sql.Statement open = a.createStatement(); // keeps A bound
        Thread owner = new Thread(() -> {
            try {
                a.setTransactionIsolation(Connection.TRANSACTION_READ_UNCOMMITTED);
            } catch (Throwable e) {
                // may fail: closed
            }
        }, "owner-A");
        GateDriver.Gate gate = GateDriver.arm("setTransactionIsolation", owner);
        owner.start();
        assertThat(gate.arrived().await(10, TimeUnit.SECONDS)).isTrue();
        a.close(); // the watchdog, on another thread
        try (Connection b = ds.getConnection()) {
            run(b, "SELECT 1");
            gate.open().countDown();
            owner.join(15_000);
        }
        for (int i = 0; i < 3; i++) {
            try (Connection later = ds.getConnection()) {
                assertThat(str(later, "SELECT @@session.tx_isolation")).as("borrower " + i + "'s isolation").isEqualTo(initial);
            }
        }
    }
}
