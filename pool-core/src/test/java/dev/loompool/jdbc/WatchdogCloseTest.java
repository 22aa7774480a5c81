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
import org.junit.jupiter.api.Test;

/**
 * From a review attack (issue 26): a close from another thread waits for the running statement only if the pool sees it
 * as "foreign", which it decides by the handle's last user. A watchdog that touches the handle
 * first — the ubiquitous {@code if (!c.isClosed()) c.close()}, or {@code st.cancel()} then
 * {@code c.close()} — becomes the user, and its close no longer waits: the state is read while
 * A's statement still runs. Driven by SLEEP / pg_sleep and the server's process list.
 */
class WatchdogCloseTest extends OnRealDatabases {

    private LoomPoolDataSource one(LoomPoolDataSource ds) {
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        return ds;
    }

    static boolean mariaRunning(String marker) {
        try (Connection c = TestDatabase.MARIADB.admin()) {
            return num(c, "SELECT count(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%" + marker
                    + "%' AND INFO NOT LIKE '%PROCESSLIST%'") == 1;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static boolean pgRunning(String marker) {
        try (Connection c = TestDatabase.POSTGRES.admin()) {
            return num(c, "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%" + marker
                    + "%' AND query NOT LIKE '%pg_stat_activity%'") == 1;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private Thread owner(Connection a, String sql, AtomicReference<Throwable> failure) {
        Thread t = new Thread(() -> {
            try (Statement st = a.createStatement()) {
                st.execute(sql);
            } catch (SQLException e) {
                failure.set(e);
            }
        }, "owner-A");
        t.start();
        return t;
    }

    /**
     * MariaDB, autocommit off: A's first statement of its transaction is an INSERT that sleeps; a
     * watchdog runs {@code if (!a.isClosed()) a.close()}. A never committed: its row must not exist.
     * (The same without the isClosed() is MariaDbStaleWireTest's case, which holds.)
     */
    @Test
    void mariaDbAWatchdogThatAsksIsClosedBeforeClosingCommitsTheTransactionItCloses() throws Exception {
        mariaTable();
        LoomPoolDataSource ds = one(maria(1));
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        String marker = "wd1_" + tag;
        Thread t = owner(a, "INSERT INTO " + table + " (v) SELECT 1 FROM (SELECT SLEEP(2) AS " + marker + ") s",
                new AtomicReference<>());
        BorrowerScenarios.eventually("A's insert sleeps", () -> mariaRunning(marker));
        if (!a.isClosed()) { // the watchdog
            a.close();
        }
        t.join(15_000);
        try (Connection b = ds.getConnection()) {
            run(b, "SELECT 1");
        }
        assertThat(mariaRows()).as("A closed its handle without commit: nothing of A's is committed").isZero();
    }

    /** The plain driver: the same watchdog's close of a MariaDB connection never commits A's insert. */
    @Test
    void mariaDbPlainDriverTheSameWatchdogDoesNotCommit() throws Exception {
        mariaTable();
        Connection a = DriverManager.getConnection(TestDatabase.MARIADB.url());
        a.setAutoCommit(false);
        String marker = "wd1p_" + tag;
        Thread t = owner(a, "INSERT INTO " + table + " (v) SELECT 1 FROM (SELECT SLEEP(2) AS " + marker + ") s",
                new AtomicReference<>());
        BorrowerScenarios.eventually("A's insert sleeps", () -> mariaRunning(marker));
        if (!a.isClosed()) {
            a.close();
        }
        t.join(15_000);
        Thread.sleep(500);
        assertThat(mariaRows()).isZero();
    }

    /**
     * MariaDB, autocommit on: {@code SELECT SLEEP(2); START TRANSACTION} (multi-queries), closed by
     * the same watchdog; B's autocommit insert must commit.
     */
    @Test
    void mariaDbAWatchdogThatAsksIsClosedLendsAsTransactionToB() throws Exception {
        mariaTable();
        LoomPoolDataSource ds = one(maria(1));
        Connection a = ds.getConnection();
        String marker = "wd3_" + tag;
        Thread t = owner(a, "SELECT SLEEP(2) AS " + marker + "; START TRANSACTION", new AtomicReference<>());
        BorrowerScenarios.eventually("A sleeps", () -> mariaRunning(marker));
        if (!a.isClosed()) { // the watchdog
            a.close();
        }
        try (Connection b = ds.getConnection()) {
            run(b, "INSERT INTO " + table + " (v) VALUES (2)");
        }
        t.join(15_000);
        assertThat(mariaRows()).as("B's autocommit insert is committed").isEqualTo(1);
    }

    /**
     * Statement.close() from a thread that first asked {@code st.isClosed()}: MariaDB, A's query
     * sleeps; the connection must not be free to lend while it runs.
     */
    @Test
    void mariaDbAStatementCloseAfterIsClosedLendsTheConnectionWhileItsQueryRuns() throws Exception {
        LoomPoolDataSource ds = one(maria(1));
        Connection a = ds.getConnection();
        String marker = "wd6_" + tag;
        Statement st = a.createStatement();
        Thread t = new Thread(() -> {
            try {
                st.execute("SELECT SLEEP(2) AS " + marker);
            } catch (SQLException e) {
                // the close may cut it
            }
        }, "owner-A");
        t.start();
        BorrowerScenarios.eventually("A sleeps", () -> mariaRunning(marker));
        if (!st.isClosed()) { // another thread
            st.close();
        }
        boolean lendable = !a.unwrap(LoomConnection.class).isBound();
        boolean running = mariaRunning(marker);
        t.join(15_000);
        a.close();
        assertThat(lendable && running).as("the connection is free to lend while A's query still runs").isFalse();
    }

}
