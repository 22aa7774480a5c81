package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static dev.loompool.jdbc.ReclaimTest.onThreadThatEnds;
import static dev.loompool.jdbc.ReclaimerWaits.awaitScans;
import static dev.loompool.jdbc.ReclaimerWaits.gcUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * A reclaim leaves nothing of borrower A for borrower B (DESIGN.md §4 "Coroutine end (reclaim)"):
 * handles dropped without close (collected) and handles whose owner thread ended, on the real
 * databases. B, the next borrower of the same physical connection, sees nothing of A's; A's late
 * calls and objects refuse and never reach B; what A committed is exact, and so is the open-handle
 * count.
 */
class ReclaimLeavesNothingForTheNextBorrowerTest extends OnRealDatabases {

    /**
     * A, on a thread that then ends, opens a transaction with session state (search_path, a GUC,
     * a temp table) and an open cursor, and drops everything without close. By default (no
     * reclaimOnOwnerExit) the collector still finds the handle: the connection is rolled back and
     * reset before B gets it, and the count comes back to zero, never below.
     */
    @Test
    void pgHandleDroppedInATransactionWithSessionStateAndACursorIsRolledBackAndResetForB() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        onThreadThatEnds(() -> {
            Connection a = ds.getConnection();
            a.setAutoCommit(false);
            run(a, "INSERT INTO " + table + " VALUES (1)");
            run(a, "SET search_path TO pg_catalog");
            run(a, "SET statement_timeout = 4321");
            run(a, "CREATE TEMP TABLE " + table + "_tmp (x int)");
            Statement st = a.createStatement();
            st.setFetchSize(5);
            ResultSet rs = st.executeQuery("SELECT g FROM generate_series(1, 50) g");
            rs.next();
            return null; // a, st and rs are dropped here, never closed
        });
        assertThat(ds.getOpenHandles()).isEqualTo(1);
        gcUntil("A's dropped handle is reclaimed", () -> ds.getReclaimedConnections() == 1);
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, "SELECT txid_current_if_assigned()")).as("B is in no transaction of A's").isNull();
            assertThat(str(b, "SHOW search_path")).isEqualTo("\"$user\", public");
            assertThat(str(b, "SHOW statement_timeout")).isEqualTo("0");
            assertThat(str(b, "SELECT to_regclass('pg_temp." + table + "_tmp')")).as("A's temp table").isNull();
            assertThat(b.getAutoCommit()).isTrue();
            run(b, "INSERT INTO " + table + " VALUES (3)");
        }
        assertThat(pgIds()).as("A's uncommitted insert is gone, B's autocommit insert stays").isEqualTo("3");
        System.gc();
        awaitScans(3);
        assertThat(ds.getOpenHandles()).as("counted down once, never twice").isZero();
        assertThat(ds.getReclaimedConnections()).isEqualTo(1);
        assertThat(ds.getPool().stats().inUse()).isZero();
    }

    /** The same on MariaDB: A's transaction, user variable and session sql_mode never reach B. */
    @Test
    void mariaHandleDroppedInATransactionWithSessionStateIsRolledBackAndResetForB() throws Exception {
        mariaTable();
        LoomPoolDataSource ds = maria(1);
        long idA = onThreadThatEnds(() -> {
            Connection a = ds.getConnection();
            a.setAutoCommit(false);
            run(a, insertOf(TestDatabase.MARIADB, 1));
            run(a, "SET @loompool_secret = 42");
            run(a, "SET SESSION sql_mode = 'ANSI_QUOTES'");
            return myIdUnpinned(a);
        });
        gcUntil("A's dropped handle is reclaimed", () -> ds.getReclaimedConnections() == 1);
        try (Connection b = ds.getConnection()) {
            if (myIdUnpinned(b) == idA) { // a new connection sees nothing of A's in any case
                assertThat(str(b, "SELECT @loompool_secret")).as("A's user variable").isNull();
                assertThat(str(b, "SELECT @@SESSION.sql_mode")).doesNotContain("ANSI_QUOTES");
            }
            assertThat(num(b, "SELECT @@autocommit")).isEqualTo(1);
            run(b, insertOf(TestDatabase.MARIADB, 3));
        }
        assertThat(mariaValues()).isEqualTo("3");
        System.gc();
        awaitScans(3);
        assertThat(ds.getOpenHandles()).isZero();
    }

    /**
     * reclaimOnOwnerExit: A's thread ends inside its transaction; after the reclaim, A's handle is
     * used from another thread. A commit, or a setAutoCommit(true) (which commits), must never
     * report success: A's insert was rolled back. While B holds the same backend in its own
     * transaction, none of A's late calls (rollback, setters, statements) may reach it.
     */
    @Test
    void pgAReclaimedHandleNeverReportsACommitAndNeverReachesB() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        ds.setReclaimOnOwnerExit(true);
        Connection a = onThreadThatEnds(() -> {
            Connection c = ds.getConnection();
            c.setAutoCommit(false);
            run(c, "INSERT INTO " + table + " VALUES (1)");
            return c;
        });
        for (int i = 0; i < 40 && ds.getReclaimedConnections() == 0; i++) {
            awaitScans(1);
        }
        assertThat(ds.getReclaimedConnections()).isEqualTo(1);
        assertThat(ds.getOpenHandles()).isZero();
        assertThatThrownBy(a::commit).as("A's commit after the reclaim").isInstanceOf(SQLException.class);
        assertThatThrownBy(() -> a.setAutoCommit(true)).as("A's implicit commit").isInstanceOf(SQLException.class);
        try (Connection b = ds.getConnection()) {
            b.setAutoCommit(false);
            run(b, "INSERT INTO " + table + " VALUES (3)");
            assertThatThrownBy(a::rollback).isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> a.setReadOnly(true)).isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> a.setAutoCommit(false)).isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> run(a, "INSERT INTO " + table + " VALUES (2)")).isInstanceOf(SQLException.class);
            assertThatThrownBy(a::createStatement).isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> a.prepareStatement("SELECT 1")).isInstanceOf(SQLException.class);
            a.close(); // quiet: it holds nothing
            assertThat(str(b, "SHOW transaction_read_only")).isEqualTo("off");
            assertThat(str(b, "SELECT txid_current_if_assigned()")).as("B's transaction is still open").isNotNull();
            b.commit();
        }
        assertThat(pgIds()).as("A committed nothing; B's transaction stands whole").isEqualTo("3");
        System.gc();
        awaitScans(3);
        assertThat(ds.getOpenHandles()).isZero();
    }

    /**
     * A handle held long enough to be held weakly lets go of its connection at commit, stays open,
     * binds another connection and is then dropped in a transaction there. Its watch was made on the
     * first connection: the second one's reclaim and the collector must count it down once, in total.
     */
    @Test
    void pgAHandleWatchedOnOneConnectionAndDroppedBoundToAnotherIsCountedDownOnce() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(2);
        Connection other = ds.getConnection();
        try {
            dropAfterTwoBindings(ds, other);
            gcUntil("A's dropped handle is reclaimed", () -> ds.getReclaimedConnections() == 1);
            System.gc();
            awaitScans(3);
            assertThat(ds.getOpenHandles()).as("only the other handle is open").isEqualTo(1);
        } finally {
            other.close();
        }
        assertThat(ds.getOpenHandles()).isZero();
        assertThat(pgIds()).as("A's first transaction committed, its second rolled back").isEqualTo("1");
        assertThat(ds.getPool().stats().inUse()).isZero();
    }

    private void dropAfterTwoBindings(LoomPoolDataSource ds, Connection other) throws Exception {
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        run(a, "INSERT INTO " + table + " VALUES (1)");
        awaitScans(3); // held across scans: the connection now holds A weakly, through its watch
        a.commit(); // lets go of the connection; A stays open
        run(other, "SELECT 1");
        other.setAutoCommit(false);
        run(other, "SELECT 2"); // other holds one connection in a transaction
        run(a, "INSERT INTO " + table + " VALUES (2)"); // A binds again, maybe the other connection
        awaitScans(3);
        other.commit();
        other.setAutoCommit(true);
    }

    /**
     * A keeps a LOB (a Blob of a large object: it talks to its connection later) and drops its
     * handle mid-transaction. The LOB does not hold the handle, so the handle is collected and the
     * connection reclaimed; B then reads its own large object on the same backend. A's late calls
     * on its Blob must refuse, and its free() must not close a descriptor of B's session.
     */
    @Test
    void pgALobKeptAfterItsHandleWasDroppedRefusesOnceReclaimedAndNeverTouchesB() throws Exception {
        pgAdmin("CREATE TABLE " + table + " (id int PRIMARY KEY, lo oid)");
        pgCleanup.add("SELECT lo_unlink(lo) FROM " + table); // before the drop: the large objects outlive the table
        pgCleanup.add("DROP TABLE IF EXISTS " + table);
        pgAdmin("INSERT INTO " + table + " VALUES (1, lo_from_bytea(0, 'AAAA')), (2, lo_from_bytea(0, 'BBBB'))");
        LoomPoolDataSource ds = pg(1);
        java.sql.Blob blobA = onThreadThatEnds(() -> {
            Connection a = ds.getConnection();
            a.setAutoCommit(false);
            try (Statement st = a.createStatement(); ResultSet rs = st.executeQuery("SELECT lo FROM " + table + " WHERE id = 1")) {
                rs.next();
                java.sql.Blob b = rs.getBlob(1);
                assertThat(new String(b.getBytes(1, 4), java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("AAAA");
                return b; // the handle is dropped here, never closed; the Blob is kept
            }
        });
        gcUntil("A's dropped handle is reclaimed", () -> ds.getReclaimedConnections() == 1);
        try (Connection b = ds.getConnection()) {
            b.setAutoCommit(false);
            try (Statement st = b.createStatement(); ResultSet rs = st.executeQuery("SELECT lo FROM " + table + " WHERE id = 2")) {
                rs.next();
                java.sql.Blob blobB = rs.getBlob(1);
                assertThat(new String(blobB.getBytes(1, 4), java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("BBBB");
                assertThatThrownBy(() -> blobA.getBytes(1, 4)).as("A's Blob after the reclaim").isInstanceOf(SQLException.class);
                assertThatThrownBy(blobA::length).isInstanceOf(SQLException.class);
                assertThatThrownBy(() -> blobA.setBytes(1, new byte[] {'X'})).isInstanceOf(SQLException.class);
                blobA.free(); // nothing to do: it must not close B's descriptor
                assertThat(new String(blobB.getBytes(1, 4), java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("BBBB");
                blobB.free();
            }
            b.commit();
        }
        try (Connection admin = TestDatabase.POSTGRES.admin()) {
            assertThat(str(admin, "SELECT string_agg(convert_from(lo_get(lo), 'UTF8'), ',' ORDER BY id) FROM " + table))
                    .isEqualTo("AAAA,BBBB");
        }
        System.gc();
        awaitScans(3);
        assertThat(ds.getOpenHandles()).isZero();
    }
}
