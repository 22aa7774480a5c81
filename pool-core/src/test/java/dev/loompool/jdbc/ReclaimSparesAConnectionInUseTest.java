package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.ServerSessions.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static dev.loompool.jdbc.ReclaimerWaits.awaitScans;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A reclaim never takes a connection that a live thread uses (DESIGN.md §4 "Coroutine end
 * (reclaim)"): with reclaimOnOwnerExit, not while another thread's statement runs on the handle of
 * an owner that ended, and not from a live owner held past the leak threshold (a warning, never a
 * reclaim).
 */
class ReclaimSparesAConnectionInUseTest extends OnRealDatabases {

    /**
     * reclaimOnOwnerExit. T1 begins a transaction (insert 1) and hands a statement to T2, which runs
     * a 4 s insert; while it runs T1 makes one more call on the handle (getAutoCommit) and ends. T2
     * is alive and its statement runs all along: the reclaimer must not take the connection. With
     * the plain driver T2's insert and commit succeed: rows 1,2.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void ownerExitReclaimNeverTakesAConnectionWhoseStatementRunsOnALiveThread(TestDatabase db) throws Exception {
        // FINDING: HandleLife.claimForReclaim checks only the owner (the thread that touched the handle
        // last), not whether a statement of the handle runs now (runs), so the reclaimer rolls back
        // and takes the connection from under T2's running statement.
        table(db);
        LoomPoolDataSource ds = ds(db, 2);
        ds.setReclaimOnOwnerExit(true);
        Connection a = ds.getConnection();
        String marker = "w" + tag;
        String longInsert = db == TestDatabase.POSTGRES
                ? "INSERT INTO " + table + " SELECT 2 FROM pg_sleep(4) AS s_" + marker
                : "INSERT INTO " + table + " (v) SELECT 2 FROM (SELECT SLEEP(4) AS s_" + marker + ") x";
        AtomicReference<Throwable> t2Failure = new AtomicReference<>();
        AtomicReference<Thread> t2 = new AtomicReference<>();
        AtomicReference<Throwable> t1Failure = new AtomicReference<>();
        Thread t1 = start("T1", platform(), () -> {
            a.setAutoCommit(false);
            run(a, insertOf(db, 1));
            var st = a.createStatement();
            t2.set(start("T2", platform(), () -> {
                try {
                    st.executeUpdate(longInsert);
                } finally {
                    st.close();
                }
                a.commit();
                a.close();
            }, t2Failure));
            awaitRunning(db, marker);
            a.getAutoCommit(); // T1's last call on the handle; then T1 ends, T2 runs on
        }, t1Failure);
        t1.join(30_000);
        assertThat(t1Failure.get()).isNull();
        t2.get().join(30_000);
        assertThat(t2Failure.get()).as("T2's insert and commit, as on the plain driver").isNull();
        assertThat(tableRows(db)).isEqualTo("1,2");
        assertThat(ds.getReclaimedConnections()).as("reclaimed while T2's statement ran").isZero();
    }

    /**
     * leakDetectionThreshold is a warning, never a reclaim: A's live thread holds a transaction far
     * past a tiny threshold, with reclaimOnOwnerExit on, across several scans; it then commits
     * whole, and B sees both rows.
     */
    @Test
    void pgALiveOwnerPastTheLeakThresholdKeepsItsTransactionWhole() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        ds.setReclaimOnOwnerExit(true);
        ds.setLeakDetectionThreshold(java.time.Duration.ofMillis(1));
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            run(a, "INSERT INTO " + table + " VALUES (1)");
            awaitScans(4);
            run(a, "INSERT INTO " + table + " VALUES (2)");
            a.commit();
        }
        assertThat(ds.getReclaimedConnections()).isZero();
        assertThat(pgIds()).isEqualTo("1,2");
        assertThat(ds.getOpenHandles()).isZero();
    }
}
