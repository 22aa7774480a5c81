package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * {@code close()} of the pool (issue 26, item 7): a connection still bound to a handle, dropped or
 * not, is aborted, so nothing stays open on the server, and A's uncommitted work is gone.
 */
class PoolCloseAbortTest extends OnRealDatabases {

    private static long sessions(long pid) throws SQLException {
        try (Connection c = TestDatabase.POSTGRES.admin()) {
            return num(c, "SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid);
        }
    }

    private static long mariaSessions(long id) throws SQLException {
        try (Connection c = TestDatabase.MARIADB.admin()) {
            return num(c, "SELECT count(*) FROM information_schema.PROCESSLIST WHERE ID = " + id);
        }
    }

    @Test
    void postgresPoolCloseAbortsAConnectionLeftInATransaction() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(2);
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        run(a, "INSERT INTO " + table + " VALUES (1)");
        long pid = pgPid(a);
        try {
            ds.close();
            BorrowerScenarios.eventually("A's backend ended", () -> {
                try {
                    return sessions(pid) == 0;
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(pgRows()).isZero();
            a.close(); // no exception: closing a handle of a closed pool is quiet
            assertThatThrownBy(a::createStatement).isInstanceOf(SQLException.class);
        } finally {
            a.close(); // the old code's connection: else the table's drop waits for it
        }
    }

    @Test
    void mariaPoolCloseAbortsAConnectionLeftInATransaction() throws Exception {
        mariaTable();
        LoomPoolDataSource ds = maria(2);
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        run(a, "INSERT INTO " + table + " (v) VALUES (1)");
        long id = myId(a);
        try {
            ds.close();
            BorrowerScenarios.eventually("A's connection ended", () -> {
                try {
                    return mariaSessions(id) == 0;
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(mariaRows()).isZero();
            assertThatThrownBy(a::rollback).as("a late call on the handle: the usual closed error")
                    .isInstanceOf(SQLException.class).hasMessageNotContaining("reclaimed");
        } finally {
            a.close();
        }
    }

    /** A running statement gets a grace to finish before the abort: its autocommit insert completes. */
    @Test
    void postgresPoolCloseLetsARunningAutocommitStatementFinish() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(2);
        Connection a = ds.getConnection();
        long pid = pgPid(a);
        Thread owner = new Thread(() -> {
            try {
                run(a, "INSERT INTO " + table + " SELECT 1 FROM pg_sleep(1)");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        owner.start();
        BorrowerScenarios.eventually("A sleeps", () -> {
            try (Connection c = TestDatabase.POSTGRES.admin()) {
                return num(c, "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND pid = " + pid) == 1;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            ds.close();
            owner.join(10_000);
            assertThat(pgRows()).as("A's autocommit insert finished within the grace").isEqualTo(1);
            BorrowerScenarios.eventually("A's backend ended", () -> {
                try {
                    return sessions(pid) == 0;
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
        } finally {
            a.close();
        }
    }
}
