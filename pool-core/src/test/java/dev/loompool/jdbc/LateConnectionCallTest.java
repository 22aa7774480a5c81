package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import org.junit.jupiter.api.Test;

/**
 * From a review attack (issue 26): commit() and rollback() read the handle's physical connection and call the driver on
 * it with no check that the binding still holds and nothing the foreign close could wait for. A
 * watchdog's close between the two gives the connection to B; A's commit() or rollback() then
 * lands in B's transaction. {@link GateDriver} holds A's thread at the entry of the
 * driver's commit()/rollback() (before the driver's lock) so that the close comes in between.
 */
class LateConnectionCallTest extends OnRealDatabases {

    private String insert(int v) {
        return "INSERT INTO " + table + " (v) VALUES (" + v + ")";
    }

    /**
     * A inserts 1 and commits; a watchdog closes A's handle as A's commit() is on its way to the
     * driver. B (maxSize 1) gets the connection, inserts 2 in its own transaction and rolls back.
     * What may be committed: A's 1 if A's commit() returned normally, and never B's 2.
     */
    @Test
    void aCommitOvertakenByAWatchdogCloseCommitsTheNextBorrowersTransaction() throws Exception {
        mariaTable();
        GateDriver.Held commit = commitOvertakenBy(gated(maria(1)), "v", Connection::close); // the watchdog's close
        String committed = mariaValues();
        assertThat(committed).as("B rolled back its 2 (A's commit() " + commit.outcome() + ")").doesNotContain("2");
        if (commit.failure().get() == null) {
            assertThat(committed).as("A's commit() returned normally: A's 1 is committed").contains("1");
        }
    }

    /**
     * A inserts 1 in a transaction and calls {@code method} (through {@code call}), held on its own
     * thread before the driver; a watchdog closes A's handle; B gets the connection and inserts 2
     * in its own transaction; A's call lands; B inserts 3.
     *
     * @return B's handle, its transaction still open
     */
    private Connection bAroundALateCall(String method, Use call) throws Exception {
        mariaTable();
        LoomPoolDataSource ds = gated(maria(1));
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        run(a, insert(1));
        GateDriver.Held late = GateDriver.hold(method, () -> call.on(a)); // it may fail: closed
        a.close(); // the watchdog, on another thread
        Connection b = ds.getConnection();
        b.setAutoCommit(false);
        run(b, insert(2));
        late.release();
        run(b, insert(3));
        return b;
    }

    /**
     * A inserts 1 and rolls back; a watchdog closes A's handle as A's rollback() is on its way to
     * the driver. B gets the connection, inserts 2 and 3 in its transaction, A's rollback lands,
     * B commits: B's rows must all be committed.
     */
    @Test
    void aRollbackOvertakenByAWatchdogCloseRollsBackTheNextBorrowersWork() throws Exception {
        Connection b = bAroundALateCall("rollback", Connection::rollback);
        b.commit();
        b.close();
        assertThat(mariaValues()).as("B committed 2 and 3").isEqualTo("2,3");
    }

    /**
     * A's setAutoCommit(true) (which commits) overtaken by a watchdog's close: B, autocommit off,
     * inserts 2; A's call lands; B inserts 3 and rolls back. Nothing of B's may be committed.
     */
    @Test
    void aSetAutoCommitOvertakenByAWatchdogCloseCommitsTheNextBorrowersTransactionAndSwitchesItToAutocommit()
            throws Exception {
        Connection b = bAroundALateCall("setAutoCommit", a -> a.setAutoCommit(true));
        b.rollback();
        b.close();
        assertThat(mariaValues()).as("B rolled back 2 and 3; A's 1 is committed or not").isIn("none", "1");
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
        LoomPoolDataSource ds = gated(maria(1));
        Connection a = ds.getConnection();
        java.sql.Statement open = a.createStatement(); // keeps A bound
        GateDriver.Held late = GateDriver.hold("setAutoCommit", () -> a.setAutoCommit(false)); // it may fail: closed
        a.close(); // the watchdog, on another thread
        assertThat(open.isClosed()).isTrue();
        try (Connection b = ds.getConnection()) {
            run(b, insert(2));
            late.release();
            run(b, insert(3));
        }
        assertThat(mariaValues()).as("B's autocommit inserts are committed").isEqualTo("2,3");
    }

    /**
     * A's setTransactionIsolation(READ_UNCOMMITTED), made while A is bound, overtaken by a
     * watchdog's close: the setting lands on the connection after it went back, where no reset
     * sees it. Every later borrower must still run at the server's default isolation.
     */
    @Test
    void anIsolationChangeOvertakenByAWatchdogCloseLeaksToEveryLaterBorrower() throws Exception {
        LoomPoolDataSource ds = gated(maria(1));
        String initial;
        try (Connection warm = ds.getConnection()) {
            initial = str(warm, "SELECT @@session.tx_isolation");
        }
        Connection a = ds.getConnection();
        a.createStatement(); // keeps A bound
        GateDriver.Held late = GateDriver.hold("setTransactionIsolation",
                () -> a.setTransactionIsolation(Connection.TRANSACTION_READ_UNCOMMITTED)); // it may fail: closed
        a.close(); // the watchdog, on another thread
        try (Connection b = ds.getConnection()) {
            run(b, "SELECT 1");
            late.release();
        }
        for (int i = 0; i < 3; i++) {
            try (Connection later = ds.getConnection()) {
                assertThat(str(later, "SELECT @@session.tx_isolation")).as("borrower " + i + "'s isolation").isEqualTo(initial);
            }
        }
    }
}
