package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * From a review attack (issue 26): the close from another thread is "foreign" only if its thread is
 * not the connection's runner. A watchdog that cleans up the usual way, {@code rollback()} then
 * {@code close()}, becomes the runner with its rollback(), so its close is treated as the user's
 * own: no wait, no retirement, while A's commit() is on its way to the driver ({@link GateDriver}).
 */
class WatchdogCallThenCloseTest extends OnRealDatabases {

    @AfterEach
    void disarm() {
        GateDriver.gate = null;
    }

    /** A's commit() overtaken by the watchdog's cleanup: B's 2, rolled back, must never be committed. */
    private void assertBsRollbackHolds(Use watchdog) throws Exception {
        mariaTable();
        GateDriver.Held commit = commitOvertakenBy(gated(maria(1)), "v", watchdog);
        assertThat(mariaValues()).as("B rolled back its 2 (A's commit() " + commit.outcome() + ")").doesNotContain("2");
    }

    /**
     * A inserts 1 and calls commit(); as A's commit() is on its way to the driver, a watchdog runs
     * {@code a.rollback(); a.close()}. B (maxSize 1) gets the connection, inserts 2 in its own
     * transaction and rolls back. B's 2 must never be committed.
     */
    @Test
    void aWatchdogRollbackThenCloseLetsAsCommitCommitTheNextBorrowersTransaction() throws Exception {
        assertBsRollbackHolds(BorrowerScenarios::rollbackThenClose); // the watchdog's cleanup, on another thread
    }

    /**
     * A inserts 1 and calls commit(); as A's commit() is on its way to the driver, a watchdog runs
     * {@code a.getMetaData().getURL(); a.close()} (it logs where the connection goes first). B (maxSize 1) gets the connection, inserts 2 in its own
     * transaction and rolls back. B's 2 must never be committed.
     */
    @Test
    void aWatchdogThatLogsTheUrlBeforeClosingLetsAsCommitCommitTheNextBorrowersTransaction() throws Exception {
        assertBsRollbackHolds(a -> {
            System.out.println("closing a stuck connection to " + a.getMetaData().getURL()); // the watchdog logs, then closes
            a.close();
        });
    }

    /**
     * A inserts 1 and calls commit(); as A's commit() is on its way to the driver, a watchdog runs
     * {@code a.isValid(1); a.close()}. B (maxSize 1) gets the connection, inserts 2 in its own
     * transaction and rolls back. B's 2 must never be committed.
     */
    @Test
    void aWatchdogThatChecksIsValidBeforeClosingLetsAsCommitCommitTheNextBorrowersTransaction() throws Exception {
        assertBsRollbackHolds(a -> {
            System.out.println("valid: " + a.isValid(1)); // the watchdog checks the connection, then closes it
            a.close();
        });
    }
}
