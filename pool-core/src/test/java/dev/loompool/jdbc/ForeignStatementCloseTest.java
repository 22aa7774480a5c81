package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * From a review attack (issue 26): Statement.close() from a thread other than the handle's user waits for "the running
 * statement", then aborts the connection. It waits for whatever runs on the connection, not for
 * the statement being closed: closing an idle, unrelated statement while the user runs a query
 * longer than validationTimeout kills that query and the user's transaction.
 */
class ForeignStatementCloseTest extends HostileSupport {

    /**
     * MariaDB, autocommit off: A inserts a row, then its worker runs a 3 s report query; meanwhile
     * another thread closes A's other, idle statement (say a cache of prepared statements being
     * cleared). A then commits. The plain driver commits A's row (below); the pool loses it.
     */
    @Test
    void mariaDbClosingAnIdleStatementFromAnotherThreadAbortsTheUsersQueryAndTransaction() throws Exception {
        mariaTable();
        LoomPoolDataSource ds = maria(1);
        ds.setValidationTimeout(Duration.ofSeconds(1));
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        run(a, "INSERT INTO " + table + " (v) VALUES (1)");
        Statement idle = a.createStatement();
        idle.execute("SELECT 1");
        String marker = "uc1_" + tag;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread worker = new Thread(() -> {
            try {
                run(a, "SELECT SLEEP(3) AS " + marker);
                a.commit();
            } catch (SQLException e) {
                failure.set(e);
            }
        }, "worker-A");
        worker.start();
        MariaDbStaleWireTest.eventually("A's report runs", () -> WatchdogCloseTest.mariaRunning(marker));
        idle.close(); // another thread closes a statement that runs nothing
        worker.join(15_000);
        a.close();
        assertThat(failure.get()).as("A's report and commit ran as on the plain driver").isNull();
        assertThat(mariaRows()).as("A committed its row").isEqualTo(1);
    }

    /** The plain driver: closing the idle statement touches nothing; A's row is committed. */
    @Test
    void mariaDbPlainDriverClosingAnIdleStatementLeavesTheUsersQueryAlone() throws Exception {
        mariaTable();
        Connection a = DriverManager.getConnection(TestDatabase.MARIADB.url());
        a.setAutoCommit(false);
        run(a, "INSERT INTO " + table + " (v) VALUES (1)");
        Statement idle = a.createStatement();
        idle.execute("SELECT 1");
        String marker = "uc1p_" + tag;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread worker = new Thread(() -> {
            try {
                run(a, "SELECT SLEEP(3) AS " + marker);
                a.commit();
            } catch (SQLException e) {
                failure.set(e);
            }
        }, "worker-A");
        worker.start();
        MariaDbStaleWireTest.eventually("A's report runs", () -> WatchdogCloseTest.mariaRunning(marker));
        idle.close();
        worker.join(15_000);
        a.close();
        assertThat(failure.get()).isNull();
        assertThat(mariaRows()).isEqualTo(1);
    }

    /** The same on PostgreSQL. */
    @Test
    void postgresClosingAnIdleStatementFromAnotherThreadAbortsTheUsersQueryAndTransaction() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        ds.setValidationTimeout(Duration.ofSeconds(1));
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        run(a, "INSERT INTO " + table + " (id) VALUES (1)");
        Statement idle = a.createStatement();
        idle.execute("SELECT 1");
        String marker = "uc2_" + tag;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread worker = new Thread(() -> {
            try {
                run(a, "SELECT pg_sleep(3) AS " + marker);
                a.commit();
            } catch (SQLException e) {
                failure.set(e);
            }
        }, "worker-A");
        worker.start();
        MariaDbStaleWireTest.eventually("A's report runs", () -> WatchdogCloseTest.pgRunning(marker));
        idle.close(); // another thread closes a statement that runs nothing
        worker.join(15_000);
        a.close();
        assertThat(failure.get()).as("A's report and commit ran as on the plain driver").isNull();
        assertThat(pgIds()).as("A committed its row").isEqualTo("1");
    }
}
