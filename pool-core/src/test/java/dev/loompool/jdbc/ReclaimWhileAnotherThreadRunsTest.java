package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.ThreadedBorrowerScenarios.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * reclaimOnOwnerExit while A's statement runs on another thread (DESIGN.md §4 "Reclaim": never a
 * handle that another thread used in that time): the statement runs to its end as on the plain driver.
 */
class ReclaimWhileAnotherThreadRunsTest extends OnRealDatabases {

    // ---- reclaimOnOwnerExit while a statement runs on another thread --------------------------------

    /**
     * FINDING (reclaimOnOwnerExit only; A is told, nothing is lost silently). The helper runs
     * {@code BEGIN; SELECT pg_sleep(5)} on A's handle; meanwhile a short-lived thread asks
     * {@code a.isClosed()} and ends: it is the handle's last user. A period later the reclaimer
     * takes the handle although the helper's statement still runs on it (Reclaimer
     * reclaimFromEndedOwner never looks at HandleLife.running()): it closes the running statement
     * (pgjdbc cancels it: the helper gets 57014) and returns the connection. DESIGN.md: "never
     * reclaims a handle that another thread used in that time". Plain driver: the sleep ends normally.
     */
    @Test
    void pgReclaimOnOwnerExitTakesAHandleWhoseStatementRunsOnAnotherThread() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        ds.setReclaimOnOwnerExit(true);
        ds.setAcquireTimeout(Duration.ofSeconds(15));
        Connection a = ds.getConnection();
        Statement st = a.createStatement();
        AtomicReference<Throwable> helperFailed = new AtomicReference<>();
        Thread helper = other("helper", () -> st.execute("BEGIN; SELECT pg_sleep(5)"), helperFailed);
        awaitRunning(TestDatabase.POSTGRES, "pg_sleep(5)");
        Thread asker = other("asker", a::isClosed, new AtomicReference<>());
        asker.join();
        helper.join(15_000); // pg_sleep(5) ends by itself, unless something cut it short
        try (Connection b = ds.getConnection()) {
            run(b, "INSERT INTO " + table + " VALUES (2)"); // autocommit: committed, as on the plain driver
            assertThat(b.unwrap(LoomConnection.class).pinReasons()).doesNotContain(PinReason.TRANSACTION);
        }
        helper.join(15_000);
        try {
            org.assertj.core.api.SoftAssertions soft = new org.assertj.core.api.SoftAssertions();
            soft.assertThat(helperFailed.get()).as("A's statement, running on the helper, ran to its end as on the plain "
                    + "driver (reclaimed connections: %d)", ds.getReclaimedConnections()).isNull();
            soft.assertThat(pgIds()).as("B's autocommitted insert").isEqualTo("2");
            soft.assertThat(helperFailed.get()).as("A's helper: only an SQLException").matches(t -> t == null || t instanceof SQLException);
            soft.assertAll();
        } finally {
            a.close();
        }
    }
}
