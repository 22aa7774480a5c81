package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * The transaction pin on PostgreSQL: savepoints, autocommit toggles (with or without a statement
 * open), batches with BEGIN/COMMIT inside, aborted transactions and SELECT FOR UPDATE; A commits
 * exactly the work it kept, what it left open is rolled back at close, and B never starts inside A's
 * transaction.
 */
class PostgresTransactionPinTest extends OnRealDatabases {

    /** Savepoints (JDBC and SQL) and autocommit toggles: exactly the kept work is committed; B is clean. */
    @Test
    void pgSavepointsWithAutoCommitTogglesCommitExactlyWhatWasKept() throws SQLException {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        long pidA;
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            pidA = pgPid(a);
            run(a, "INSERT INTO " + table + " VALUES (1)");
            Savepoint sp = a.setSavepoint("s1");
            run(a, "INSERT INTO " + table + " VALUES (2)");
            a.rollback(sp);
            Savepoint sp2 = a.setSavepoint();
            run(a, "INSERT INTO " + table + " VALUES (3)");
            a.releaseSavepoint(sp2);
            assertThat(pgRows()).isZero();
            a.setAutoCommit(true); // commits 1 and 3
            assertThat(pgRows()).isEqualTo(2);
            run(a, "BEGIN");
            run(a, "INSERT INTO " + table + " VALUES (4)");
            run(a, "SAVEPOINT x");
            run(a, "INSERT INTO " + table + " VALUES (5)");
            run(a, "ROLLBACK TO SAVEPOINT x");
            run(a, "RELEASE SAVEPOINT x");
            assertThat(a.unwrap(LoomConnection.class).pinReasons()).contains(PinReason.TRANSACTION);
        } // closed with the SQL transaction open: 4 rolled back
        try (Connection b = ds.getConnection()) {
            assertThat(pgPid(b)).isEqualTo(pidA);
            assertThat(str(b, "SELECT now() = statement_timestamp()")).as("B is not inside A's transaction").isEqualTo("f");
            run(b, "INSERT INTO " + table + " VALUES (6)");
        }
        assertThat(pgIds()).isEqualTo("1,3,6");
    }

    /** A Statement batch with BEGIN/COMMIT/BEGIN inside, closed without commit: only the committed part stays. */
    @Test
    void pgBatchWithTransactionControlInside() throws SQLException {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        pgAThenB(ds, a -> {
            try (Statement st = a.createStatement()) {
                st.addBatch("BEGIN");
                st.addBatch("INSERT INTO " + table + " VALUES (1)");
                st.addBatch("COMMIT");
                st.addBatch("BEGIN");
                st.addBatch("INSERT INTO " + table + " VALUES (2)");
                st.executeBatch();
            }
            run(a, "INSERT INTO " + table + " VALUES (3)"); // inside A's open SQL transaction
        }, b -> run(b, "INSERT INTO " + table + " VALUES (10)"));
        assertThat(pgIds()).isEqualTo("1,10");
    }

    /** Failed (aborted) transaction, then close: B gets a clean connection, nothing of A's is committed. */
    @Test
    void pgFailedTransactionThenCloseIsCleanForB() throws SQLException {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        pgAThenB(ds, a -> {
            run(a, "BEGIN");
            run(a, "INSERT INTO " + table + " VALUES (1)");
            assertThatThrownBy(() -> run(a, "SELECT 1/0")).isInstanceOf(SQLException.class);
        }, b -> run(b, "INSERT INTO " + table + " VALUES (2)"));
        assertThat(pgRows()).isEqualTo(1);
    }

    /** SELECT FOR UPDATE with autocommit off, commit: the row lock is gone and the handle unbinds. */
    @Test
    void pgSelectForUpdateThenCommitReleasesTheLock() throws SQLException {
        pgTable();
        pgAdmin("INSERT INTO " + table + " VALUES (1)");
        LoomPoolDataSource ds = pg(1);
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            num(a, "SELECT id FROM " + table + " FOR UPDATE");
            a.commit();
            assertThat(a.unwrap(LoomConnection.class).isBound()).isFalse();
            try (Connection admin = TestDatabase.POSTGRES.admin()) {
                run(admin, "SET lock_timeout = '2s'");
                run(admin, "UPDATE " + table + " SET id = 2");
            }
            num(a, "SELECT id FROM " + table + " FOR UPDATE");
        } // closed holding the lock: rolled back
        try (Connection admin = TestDatabase.POSTGRES.admin()) {
            run(admin, "SET lock_timeout = '2s'");
            run(admin, "UPDATE " + table + " SET id = 3");
        }
    }

    /** setAutoCommit(false) on a bound handle that never runs a statement, then toggles with a statement open. */
    @Test
    void pgAutoCommitOffWithoutAStatementAndTogglesWithAStatementOpen() throws SQLException {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        long pidA;
        try (Connection a = ds.getConnection(); Statement st = a.createStatement()) {
            pidA = pgPid(a);
            a.setAutoCommit(false);
            a.setAutoCommit(true);
            st.execute("INSERT INTO " + table + " VALUES (1)"); // autocommit
            a.setAutoCommit(false);
            st.execute("INSERT INTO " + table + " VALUES (2)");
            a.setAutoCommit(true); // commits 2
            a.setAutoCommit(false);
            st.execute("INSERT INTO " + table + " VALUES (3)");
            st.close();
            a.setAutoCommit(false); // no-op
        } // 3 rolled back
        try (Connection b = ds.getConnection()) {
            assertThat(pgPid(b)).isEqualTo(pidA);
            assertThat(b.getAutoCommit()).isTrue();
            run(b, "INSERT INTO " + table + " VALUES (4)");
        }
        assertThat(pgIds()).isEqualTo("1,2,4");
    }
}
