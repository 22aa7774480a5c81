package dev.loompool.jdbc;

import static dev.loompool.jdbc.BorrowerScenarios.*;
import static dev.loompool.jdbc.PlainQueries.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * MariaDB Connector/J's transaction flags (issue 26, item 5): an error packet carries no status
 * (the driver then sets SERVER_STATUS_IN_TRANS on its own), and the flags are a plain field the
 * driver updates while a statement runs. Borrower A leaves the connection in one of those moments;
 * what does B get, and what did A commit? The cases alike on PostgreSQL are in {@link StaleWireSupport}.
 */
class MariaDbStaleWireTest extends StaleWireSupport {

    MariaDbStaleWireTest() {
        super(TestDatabase.MARIADB);
    }

    /** Inside a transaction begun by SQL, an error leaves the transaction open: A keeps the connection. */
    @Test
    void aFailedStatementInsideATransactionStillPins() throws Exception {
        hostile.mariaTable();
        LoomPoolDataSource ds = one(Duration.ofSeconds(1));
        try (Connection a = ds.getConnection()) {
            run(a, "START TRANSACTION");
            run(a, "INSERT INTO " + hostile.table + " (v) VALUES (1)");
            assertThatThrownBy(() -> run(a, "SELECT * FROM missing_table_" + hostile.tag)).isInstanceOf(SQLException.class);
            assertThat(a.unwrap(LoomConnection.class).isBound()).isTrue();
            try (Connection b = ds.getConnection()) {
                assertThatThrownBy(() -> run(b, "SELECT 1")).as("B waits: A's transaction holds the only connection")
                        .isInstanceOf(SQLException.class);
            }
            run(a, "COMMIT");
            assertThat(a.unwrap(LoomConnection.class).isBound()).isFalse();
        }
        assertThat(hostile.mariaRows()).isEqualTo(1);
    }

    /** A watchdog closes A's handle during {@code SELECT SLEEP(2); START TRANSACTION}: B's autocommit insert commits. */
    @Test
    void aWatchdogCloseDuringAMultiQueryThatBeginsATransactionDoesNotLendItsTransaction() throws Exception {
        watchdogCloseDuringATextThatBeginsATransactionDoesNotLendIt("SELECT SLEEP(2); START TRANSACTION");
    }

    /** Statement.close() on another thread while its query runs: the connection is not lent meanwhile. */
    @Test
    void aForeignStatementCloseDoesNotLendTheConnectionWhileItsQueryRuns() throws Exception {
        hostile.mariaTable();
        LoomPoolDataSource ds = one(Duration.ofSeconds(10));
        Connection a = ds.getConnection();
        Thread owner = foreignStatementCloseWhileItSleeps(a, "SELECT SLEEP(2)");
        AtomicLong bRows = new AtomicLong(-1);
        Thread b = new Thread(() -> {
            try (Connection c = ds.getConnection()) {
                run(c, "INSERT INTO " + hostile.table + " (v) VALUES (2)");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            bRows.set(0);
        }, "B");
        b.start();
        owner.join(15_000);
        a.close();
        b.join(15_000);
        assertThat(bRows.get()).as("B ran").isZero();
        assertThat(hostile.mariaRows()).as("B's autocommit insert is committed").isEqualTo(1);
    }

    /**
     * MySQL Connector/J keeps the state of its last stored OK packet: after
     * {@code START TRANSACTION; INSERT …; <an error>} it says "no transaction" on an open one, and
     * a ping does not correct it. A's insert must be rolled back, and B's autocommit insert commit.
     */
    @Test
    void mysqlConnectorJAnErrorAfterATransactionBeganInTheSameTextDoesNotLendTheTransaction() throws Exception {
        hostile.mariaTable();
        LoomPoolDataSource ds = one(Duration.ofSeconds(3));
        ds.setJdbcUrl(TestDatabase.MARIADB.url().replace("jdbc:mariadb:", "jdbc:mysql:") + "&allowMultiQueries=true");
        try (Connection a = ds.getConnection()) {
            assertThatThrownBy(() -> run(a, "START TRANSACTION; INSERT INTO " + hostile.table + " (v) VALUES (1); SELECT * FROM missing_"
                    + hostile.tag)).isInstanceOf(SQLException.class);
        }
        try (Connection b = ds.getConnection()) {
            run(b, "INSERT INTO " + hostile.table + " (v) VALUES (2)");
        }
        try (Connection admin = TestDatabase.MARIADB.admin()) {
            assertThat(str(admin, "SELECT coalesce(group_concat(v ORDER BY v), 'none') FROM " + hostile.table))
                    .as("A's insert rolled back, B's committed").isEqualTo("2");
        }
    }
    /**
     * MySQL Connector/J's status flags say autocommit is off as well as whether a transaction is
     * open (issue 27). A turns autocommit off where the SQL classifier does not look (inside a
     * compound statement, which today's classifier takes for nothing): B's two autocommitted
     * inserts must both be committed, not held in a transaction the server opened for them and
     * rolled back when B closes.
     */
    @Test
    void mysqlConnectorJAutocommitTurnedOffBySqlTheClassifierMissesDoesNotHoldTheNextBorrowersWrites()
            throws Exception {
        hostile.mariaTable();
        LoomPoolDataSource ds = one(Duration.ofSeconds(3));
        ds.setJdbcUrl(TestDatabase.MARIADB.url().replace("jdbc:mariadb:", "jdbc:mysql:"));
        long idA;
        try (Connection first = ds.getConnection()) {
            idA = myIdUnpinned(first); // on a handle of its own: A's lets go by A's SQL alone
        }
        try (Connection a = ds.getConnection()) {
            run(a, "IF 1 THEN SET autocommit = 0; END IF");
        }
        String bSaw;
        try (Connection b = ds.getConnection()) {
            run(b, "INSERT INTO " + hostile.table + " (v) VALUES (1)");
            run(b, "INSERT INTO " + hostile.table + " (v) VALUES (2)");
            bSaw = "B on " + (myIdUnpinned(b) == idA ? "A's connection" : "a new connection") + " saw @@autocommit "
                    + str(b, "SELECT @@autocommit");
        }
        assertThat(hostile.mariaRows()).as("%s; of B's 2 autocommitted inserts, committed", bSaw).isEqualTo(2);
    }
}
