package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static dev.loompool.jdbc.ReclaimTest.onThreadThatEnds;
import static dev.loompool.jdbc.ReclaimerWaits.awaitScans;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * A {@code Connection} outlives the thread that opened or last used it (DESIGN.md §4, "Coroutine
 * end"), on the real databases: borrower A's work is handed between threads; what did A really
 * commit, and what does B, the next borrower of the same physical connection, see?
 */
class HandleOutlivesItsThreadTest extends OnRealDatabases {

    /** A helper thread runs the first statement of A's transaction (and binds it), then ends. */
    @Test
    void pgTransactionWhoseFirstStatementRanOnAHelperThreadIsCommittedWhole() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        long pidA;
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            onThreadThatEnds(() -> {
                run(a, "INSERT INTO " + table + " VALUES (1)");
                return null;
            });
            awaitScans(3);
            run(a, "INSERT INTO " + table + " VALUES (2)");
            pidA = pgPid(a);
            a.commit();
        }
        assertThat(pgIds()).isEqualTo("1,2");
        try (Connection b = ds.getConnection()) {
            assertThat(pgPid(b)).isEqualTo(pidA);
            assertThat(str(b, "SELECT txid_current_if_assigned()")).as("B is in no transaction of A's").isNull();
        }
        assertThat(ds.getReclaimedConnections()).isZero();
    }

    /** A startup thread opens the LISTEN connection a worker then polls; the startup thread ends. */
    @Test
    void pgListenConnectionOpenedByAStartupThreadKeepsReceivingNotifications() throws Exception {
        LoomPoolDataSource ds = pg(2);
        String channel = "loompool_jobs_" + tag;
        Connection listener = onThreadThatEnds(() -> {
            Connection c = ds.getConnection();
            run(c, "LISTEN " + channel);
            return c;
        });
        try {
            awaitScans(3);
            pgAdmin("NOTIFY " + channel + ", 'job 1'");
            run(listener, "SELECT 1"); // the worker's poll brings the notification in
            PGNotification[] received = listener.unwrap(PGConnection.class).getNotifications(2000);
            assertThat(received).extracting(PGNotification::getParameter).containsExactly("job 1");
            assertThat(ds.getReclaimedConnections()).isZero();
        } finally {
            listener.close();
        }
    }

    /**
     * reclaimOnOwnerExit: A's thread ends inside its transaction and nobody uses the handle: it is
     * rolled back and B, on the same backend, finds nothing of A's; A's handle says why it is gone.
     */
    @Test
    void pgWithReclaimOnOwnerExitAnEndedThreadsTransactionIsRolledBackBeforeBGetsTheConnection() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        ds.setReclaimOnOwnerExit(true);
        long[] pidA = new long[1];
        Connection a = onThreadThatEnds(() -> {
            Connection c = ds.getConnection();
            c.setAutoCommit(false);
            run(c, "INSERT INTO " + table + " VALUES (1)");
            run(c, "SET search_path TO pg_catalog");
            pidA[0] = pgPid(c);
            return c;
        });
        for (int i = 0; i < 40 && ds.getReclaimedConnections() == 0; i++) {
            awaitScans(1);
        }
        assertThat(ds.getReclaimedConnections()).isEqualTo(1);
        assertThatThrownBy(() -> run(a, "INSERT INTO " + table + " VALUES (2)"))
                .hasMessageStartingWith("connection was reclaimed: ");
        try (Connection b = ds.getConnection()) {
            assertThat(pgPid(b)).isEqualTo(pidA[0]);
            assertThat(str(b, "SHOW search_path")).isEqualTo("\"$user\", public");
            run(b, "INSERT INTO " + table + " VALUES (3)");
        }
        assertThat(pgIds()).isEqualTo("3");
        assertThat(ds.getOpenHandles()).isZero();
    }

    /**
     * reclaimOnOwnerExit: A's thread ends inside its transaction with a cursor open (a statement
     * and its result set, read in part), and nobody uses any of it: after the quiet period it is
     * reclaimed all the same, its statement and result set closed (a late call says why), A's
     * insert rolled back, and B gets the connection.
     */
    @Test
    void pgWithReclaimOnOwnerExitAnEndedThreadsOpenResultSetIsClosedAndItsTransactionRolledBack() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        ds.setReclaimOnOwnerExit(true);
        long[] pidA = new long[1];
        HandedOver a = onThreadThatEnds(() -> {
            Connection c = ds.getConnection();
            c.setAutoCommit(false);
            run(c, "INSERT INTO " + table + " VALUES (1)");
            pidA[0] = pgPid(c);
            Statement st = c.createStatement();
            st.setFetchSize(5);
            ResultSet rs = st.executeQuery("SELECT g FROM generate_series(1, 50) g");
            rs.next();
            return new HandedOver(c, st, rs, null, null);
        });
        try {
            reclaimedWithItsResultSet(ds, a, pidA[0]);
        } finally {
            a.c().close(); // nothing to do once reclaimed; otherwise it would keep A's lock on the table
        }
        assertThat(pgIds()).isEqualTo("3");
        assertThat(ds.getOpenHandles()).isZero();
    }

    private void reclaimedWithItsResultSet(LoomPoolDataSource ds, HandedOver a, long pidA) throws Exception {
        for (int i = 0; i < 40 && ds.getReclaimedConnections() == 0; i++) {
            awaitScans(1);
        }
        assertThat(ds.getReclaimedConnections()).isEqualTo(1);
        assertThatThrownBy(() -> a.rs().next()).hasMessageStartingWith("connection was reclaimed: ");
        assertThatThrownBy(() -> a.st().executeQuery("SELECT 1")).hasMessageStartingWith("connection was reclaimed: ");
        assertThat(pgRows()).as("A's uncommitted insert, seen from outside").isZero();
        try (Connection b = ds.getConnection()) {
            assertThat(pgPid(b)).as("B gets A's backend").isEqualTo(pidA);
            assertThat(num(b, "SELECT count(*) FROM " + table)).isZero();
            assertThat(str(b, "SELECT txid_current_if_assigned()")).as("B is in no transaction of A's").isNull();
            run(b, "INSERT INTO " + table + " VALUES (3)");
        }
        a.rs().close(); // closing what the reclaim closed stays quiet
        a.st().close();
    }

    /** MariaDB: A's thread opens the transaction and hands the handle over, then ends. */
    @Test
    void mariaTransactionHandedOverByAThreadThatEndsIsNotRolledBack() throws Exception {
        mariaTable();
        LoomPoolDataSource ds = maria(1);
        Connection a = onThreadThatEnds(() -> {
            Connection c = ds.getConnection();
            c.setAutoCommit(false);
            run(c, "INSERT INTO " + table + " (v) VALUES (1)");
            return c;
        });
        long idA;
        try {
            awaitScans(3);
            run(a, "INSERT INTO " + table + " (v) VALUES (2)");
            idA = myId(a);
            a.commit();
        } finally {
            a.close();
        }
        assertThat(mariaRows()).isEqualTo(2);
        try (Connection b = ds.getConnection()) {
            assertThat(myId(b)).isEqualTo(idA);
            assertThat(num(b, "SELECT @@in_transaction")).isZero();
        }
        assertThat(ds.getReclaimedConnections()).isZero();
    }

    // ---- reclaimOnOwnerExit: A hands objects from its handle to B, then ends ----------------------

    @FunctionalInterface
    private interface FirstUse {
        void on(HandedOver handedOver) throws SQLException;
    }

    /**
     * Runs {@code work} on thread A, which hands what it made to B (this thread) and ends only once
     * B has made its first call on it: B is then the handle's user, however long it takes after.
     */
    private static HandedOver handOverThenEnd(ReclaimTest.JdbcWork<HandedOver> work, FirstUse firstUse)
            throws Exception {
        CountDownLatch taken = new CountDownLatch(1);
        CompletableFuture<HandedOver> handed = new CompletableFuture<>();
        Thread a = new Thread(() -> {
            try {
                handed.complete(work.run());
                taken.await();
            } catch (Throwable e) {
                handed.completeExceptionally(e);
            }
        }, "hands-over-" + System.nanoTime());
        a.start();
        HandedOver h = handed.get();
        try {
            firstUse.on(h);
        } finally {
            taken.countDown();
        }
        a.join();
        return h;
    }

    /** What A hands to B before its thread ends: its handle and what it opened on it. */
    private record HandedOver(Connection c, Statement st, ResultSet rs, PreparedStatement ps, DatabaseMetaData meta) {
    }

    /**
     * A inserts 1 in a transaction, opens a cursor over 50 rows (fetchSize 5, so the rows come as
     * they are read) and hands the result set and the connection to B, then ends once B has taken
     * them over (B's first call on them). B reads slowly (scans pass between its reads), closes
     * the result set, waits again, and commits. B must see every row, and A's insert be committed.
     * (Had nobody used them for a full period after A ended, they would be reclaimed:
     * {@link #pgWithReclaimOnOwnerExitAnEndedThreadsOpenResultSetIsClosedAndItsTransactionRolledBack}.)
     */
    @Test
    void pgResultSetHandedToAnotherThreadIsReadWholeAndItsTransactionCommitted() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(2);
        ds.setReclaimOnOwnerExit(true);
        HandedOver a = handOverThenEnd(() -> {
            Connection c = ds.getConnection();
            c.setAutoCommit(false);
            run(c, "INSERT INTO " + table + " VALUES (1)");
            Statement st = c.createStatement();
            st.setFetchSize(5);
            return new HandedOver(c, st, st.executeQuery("SELECT g FROM generate_series(1, 50) g"), null, null);
        }, h -> h.rs().getFetchSize());
        awaitScans(4); // A is gone, and more than a full period passes: B, alive, is the handle's user
        long sum = 0;
        int read = 0;
        while (a.rs().next()) { // B, this thread
            sum += a.rs().getInt(1);
            if (++read % 10 == 0) {
                awaitScans(3);
            }
        }
        a.rs().close();
        a.st().close();
        awaitScans(3);
        a.c().commit();
        a.c().close();
        assertThat(read).as("B read every row").isEqualTo(50);
        assertThat(sum).isEqualTo(50 * 51 / 2);
        assertThat(pgIds()).as("A's insert, committed by B").isEqualTo("1");
        assertThat(ds.getReclaimedConnections()).isZero();
        assertThat(ds.getOpenHandles()).isZero();
    }

    /** A prepares an insert in its transaction and hands it over; B fills it in and runs it later, then commits. */
    @Test
    void pgPreparedStatementHandedToAnotherThreadIsFilledRunAndCommitted() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(2);
        ds.setReclaimOnOwnerExit(true);
        HandedOver a = handOverThenEnd(() -> {
            Connection c = ds.getConnection();
            c.setAutoCommit(false);
            run(c, "INSERT INTO " + table + " VALUES (1)");
            return new HandedOver(c, null, null, c.prepareStatement("INSERT INTO " + table + " VALUES (?)"), null);
        }, h -> h.ps().getFetchSize());
        awaitScans(4);
        a.ps().setInt(1, 2); // B, this thread
        awaitScans(3);
        a.ps().executeUpdate();
        a.ps().close();
        awaitScans(3);
        a.c().commit();
        a.c().close();
        assertThat(pgIds()).isEqualTo("1,2");
        assertThat(ds.getReclaimedConnections()).isZero();
    }

    /**
     * A looks its table up through the connection's metadata and hands the metadata, the result
     * set it got and its transaction to B, then ends. B reads the result set and its metadata with
     * scans passing in between, asks the metadata again, inserts and commits.
     */
    @Test
    void pgMetadataHandedToAnotherThreadKeepsTheTransaction() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(2);
        ds.setReclaimOnOwnerExit(true);
        HandedOver a = handOverThenEnd(() -> {
            Connection c = ds.getConnection();
            c.setAutoCommit(false);
            run(c, "INSERT INTO " + table + " VALUES (1)");
            DatabaseMetaData meta = c.getMetaData();
            return new HandedOver(c, null, meta.getTables(null, null, table, null), null, meta);
        }, h -> h.rs().getFetchSize());
        awaitScans(4);
        ResultSet tables = a.rs(); // B, this thread
        assertThat(tables.next()).isTrue();
        awaitScans(3);
        int columns = tables.getMetaData().getColumnCount();
        awaitScans(3);
        String found = tables.getString("TABLE_NAME");
        tables.close();
        awaitScans(3);
        assertThat(a.meta().getDatabaseProductName()).isEqualTo("PostgreSQL");
        awaitScans(3);
        run(a.c(), "INSERT INTO " + table + " VALUES (2)");
        a.c().commit();
        a.c().close();
        assertThat(found).isEqualTo(table);
        assertThat(columns).isPositive();
        assertThat(pgIds()).isEqualTo("1,2");
        assertThat(ds.getReclaimedConnections()).isZero();
    }
}
