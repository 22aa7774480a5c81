package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** WatchdogCallThenCloseTest on PostgreSQL: the watchdog's rollback() makes it the runner. */
class PostgresWatchdogCallThenCloseTest extends OnRealDatabases {

    @AfterEach
    void disarm() {
        GateDriver.gate = null;
    }

    @Test
    void postgresAWatchdogRollbackThenCloseLetsAsCommitCommitTheNextBorrowersTransaction() throws Exception {
        pgTable();
        GateDriver.Held commit = commitOvertakenBy(gated(pg(1)), "id", BorrowerScenarios::rollbackThenClose); // the watchdog's cleanup, on another thread
        String committed;
        try (Connection admin = TestDatabase.POSTGRES.admin()) {
            committed = str(admin, "SELECT coalesce(string_agg(id::text, ',' ORDER BY id), 'none') FROM " + table);
        }
        assertThat(committed).as("B rolled back its 2 (A's commit() " + commit.outcome() + ")").doesNotContain("2");
    }
}
