package dev.loompool.jdbc;

import static dev.loompool.jdbc.BorrowerScenarios.*;
import static dev.loompool.jdbc.PlainQueries.*;
import java.sql.Connection;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The cases of {@link MariaDbStaleWireTest} on PostgreSQL (with those in {@link StaleWireSupport}): pgjdbc's transaction state is current
 * after an error (ReadyForQuery follows every ErrorResponse), but it is updated only at
 * ReadyForQuery, so a close on another thread during a statement reads it stale too.
 */
class PostgresStaleWireTest extends StaleWireSupport {

    PostgresStaleWireTest() {
        super(TestDatabase.POSTGRES);
    }

    /** A watchdog closes A's handle during {@code SELECT pg_sleep(2); BEGIN}: B's autocommit insert commits. */
    @Test
    void aWatchdogCloseDuringAMultiStatementThatBeginsATransactionDoesNotLendItsTransaction() throws Exception {
        watchdogCloseDuringATextThatBeginsATransactionDoesNotLendIt("SELECT pg_sleep(2); BEGIN");
    }

    /** Statement.close() on another thread while its query runs: the connection is not lent meanwhile. */
    @Test
    void aForeignStatementCloseDoesNotLendTheConnectionWhileItsQueryRuns() throws Exception {
        LoomPoolDataSource ds = one(Duration.ofSeconds(10));
        Connection a = ds.getConnection();
        Thread owner = foreignStatementCloseWhileItSleeps(a, "SELECT pg_sleep(2)");
        owner.join(15_000);
        a.close();
    }
}
