package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * From a review attack (issue 26): Statement.close() from a thread other than the handle's user waits for "the running
 * statement", then aborts the connection. It waits for whatever runs on the connection, not for
 * the statement being closed: closing an idle, unrelated statement while the user runs a query
 * longer than validationTimeout kills that query and the user's transaction.
 */
class ForeignStatementCloseTest extends OnRealDatabases {

    /**
     * A, autocommit off, inserts its row and keeps an idle statement; its worker runs a 3 s report
     * ({@code report}, its marker in place of %s) and commits; once {@code running} finds the
     * marker, another thread closes the idle statement (say a cache of prepared statements being
     * cleared), and A closes after its worker. A's report and commit must run as on the plain driver.
     */
    private void assertIdleStatementClosedDuringTheReportLeavesIt(Connection a, String column, String marker, String report,
            Predicate<String> running) throws Exception {
        a.setAutoCommit(false);
        run(a, "INSERT INTO " + table + " (" + column + ") VALUES (1)");
        Statement idle = a.createStatement();
        idle.execute("SELECT 1");
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread worker = new Thread(() -> {
            try {
                run(a, String.format(report, marker + "_" + tag));
                a.commit();
            } catch (SQLException e) {
                failure.set(e);
            }
        }, "worker-A");
        worker.start();
        BorrowerScenarios.eventually("A's report runs", () -> running.test(marker + "_" + tag));
        idle.close(); // another thread closes a statement that runs nothing
        worker.join(15_000);
        a.close();
        assertThat(failure.get()).as("A's report and commit ran as on the plain driver").isNull();
    }

    /** A's handle on {@code ds}, a pool of one whose validationTimeout (1 s) is shorter than A's report. */
    private static Connection aWithShortValidation(LoomPoolDataSource ds) throws SQLException {
        ds.setValidationTimeout(Duration.ofSeconds(1));
        return ds.getConnection();
    }

    /**
     * MariaDB, autocommit off: A inserts a row, then its worker runs a 3 s report query; meanwhile
     * another thread closes A's other, idle statement (say a cache of prepared statements being
     * cleared). A then commits. The plain driver commits A's row (below); the pool loses it.
     */
    @Test
    void mariaDbClosingAnIdleStatementFromAnotherThreadAbortsTheUsersQueryAndTransaction() throws Exception {
        mariaTable();
        assertIdleStatementClosedDuringTheReportLeavesIt(aWithShortValidation(maria(1)), "v", "uc1",
                "SELECT SLEEP(3) AS %s", WatchdogCloseTest::mariaRunning);
        assertThat(mariaRows()).as("A committed its row").isEqualTo(1);
    }

    /** The plain driver: closing the idle statement touches nothing; A's row is committed. */
    @Test
    void mariaDbPlainDriverClosingAnIdleStatementLeavesTheUsersQueryAlone() throws Exception {
        mariaTable();
        assertIdleStatementClosedDuringTheReportLeavesIt(DriverManager.getConnection(TestDatabase.MARIADB.url()), "v",
                "uc1p", "SELECT SLEEP(3) AS %s", WatchdogCloseTest::mariaRunning);
        assertThat(mariaRows()).isEqualTo(1);
    }

    /** The same on PostgreSQL. */
    @Test
    void postgresClosingAnIdleStatementFromAnotherThreadAbortsTheUsersQueryAndTransaction() throws Exception {
        pgTable();
        assertIdleStatementClosedDuringTheReportLeavesIt(aWithShortValidation(pg(1)), "id", "uc2",
                "SELECT pg_sleep(3) AS %s", WatchdogCloseTest::pgRunning);
        assertThat(pgIds()).as("A committed its row").isEqualTo("1");
    }
}
