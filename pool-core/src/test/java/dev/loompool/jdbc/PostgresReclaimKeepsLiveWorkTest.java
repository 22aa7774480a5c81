package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.jdbc.internal.lifecycle.ReclaimerInternals;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Reclaim never takes live work: a dropped handle whose unwrapped driver connection is still in use
 * is not reclaimed (unwrap pins), and a transaction handed over by a thread that then ends is not
 * rolled back (reclaiming on owner exit is opt-in).
 */
class PostgresReclaimKeepsLiveWorkTest extends OnRealDatabases {

    /**
     * The handle is dropped but the driver object unwrapped from it is still in use (the reason
     * unwrap pins): the reclaimer must not give the connection to B, where A's raw calls would act
     * on B's work. A leak is the lesser harm: B waits and times out.
     */
    @Test
    void pgHandleDroppedWhileItsUnwrappedConnectionIsStillUsedIsNotReclaimed() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        Connection raw = dropHandleKeepRaw(ds);
        // Shortened once A holds its connection: A's own connect must not race 300 ms on a loaded host.
        ds.setAcquireTimeout(Duration.ofMillis(300));
        long scans = ReclaimerInternals.reclaimerScans();
        for (int i = 0; i < 40 && ReclaimerInternals.reclaimerScans() < scans + 6; i++) {
            System.gc();
            Thread.sleep(100);
        }
        assertThat(ds.getReclaimedConnections()).isZero();
        try (Connection b = ds.getConnection()) {
            assertThatThrownBy(() -> pgPid(b)).isInstanceOf(java.sql.SQLTransientConnectionException.class);
        }
        run(raw, "INSERT INTO " + table + " VALUES (10)"); // A's own connection, in autocommit
        assertThat(pgRows()).isEqualTo(1);
    }

    private static Connection dropHandleKeepRaw(LoomPoolDataSource ds) throws SQLException {
        Connection h = ds.getConnection();
        Connection raw = (Connection) h.unwrap(org.postgresql.PGConnection.class);
        run(raw, "LISTEN atk_worker");
        return raw; // h is unreachable from here on
    }

    /**
     * DESIGN §4: a Connection may outlive the thread that opened it; reclaiming on owner exit is
     * opt-in. Here a worker thread opens the transaction and hands the handle over, then ends.
     */
    @Test
    void pgTransactionHandedOverByAThreadThatEndsIsNotRolledBack() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(2);
        Connection[] box = new Connection[1];
        Thread t = new Thread(() -> {
            try {
                box[0] = ds.getConnection();
                box[0].setAutoCommit(false);
                run(box[0], "INSERT INTO " + table + " VALUES (1)");
            } catch (SQLException e) {
                throw new RuntimeException(e);
            }
        });
        t.start();
        t.join();
        Connection c = box[0];
        try {
            run(c, "INSERT INTO " + table + " VALUES (2)");
            for (int i = 0; i < 6; i++) {
                Thread.sleep(250);
                run(c, "INSERT INTO " + table + " VALUES (" + (3 + i) + ")"); // used all along by this thread
            }
            c.commit();
        } finally {
            c.close();
        }
        assertThat(pgRows()).isEqualTo(8);
    }
}
