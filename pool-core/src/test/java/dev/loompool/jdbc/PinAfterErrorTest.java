package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * From a review attack (issue 26): after a failed transaction end, does A's idle, open handle still hold the pool's only
 * connection? The server reports no transaction, so B (maxSize 1) should get it, as after a
 * successful commit.
 */
class PinAfterErrorTest extends OnRealDatabases {

    private LoomPoolDataSource one(LoomPoolDataSource ds) {
        ds.setAcquireTimeout(Duration.ofSeconds(2));
        return ds;
    }

    /**
     * PostgreSQL, autocommit off: A's commit() fails on a deferred unique constraint; the server
     * ended the transaction (rolled back). A keeps its handle open, idle; B must get the connection.
     */
    @Test
    void postgresAFailedCommitLeavesAnIdleHandlePinned() throws Exception {
        pgAdmin("CREATE TABLE " + table + " (id int, CONSTRAINT u_" + tag + " UNIQUE (id) DEFERRABLE INITIALLY DEFERRED)");
        pgCleanup.add("DROP TABLE IF EXISTS " + table);
        LoomPoolDataSource ds = one(pg(1));
        try (Connection a = ds.getConnection()) {
            long pidA = pgPidUnpinned(a);
            a.setAutoCommit(false);
            run(a, "INSERT INTO " + table + " VALUES (1), (1)");
            assertThatThrownBy(a::commit).isInstanceOf(SQLException.class);
            try (Connection pgCheck = TestDatabase.POSTGRES.admin()) {
                assertThat(num(pgCheck, "SELECT count(*) FROM pg_stat_activity WHERE state LIKE 'idle in transaction%' AND pid = " + pidA)).as("the server has no transaction open").isZero();
            }
            try (Connection b = ds.getConnection()) {
                assertThat(num(b, "SELECT 1")).as("B gets the idle connection").isEqualTo(1);
            }
        }
    }

    /** MariaDB, autocommit off: {@code INSERT …; COMMIT; SELECT * FROM missing}, then idle. */
    @Test
    void mariaDbAutocommitOffATextThatCommitsThenFailsLeavesAnIdleHandlePinned() throws Exception {
        mariaTable();
        LoomPoolDataSource ds = one(maria(1));
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            assertThatThrownBy(() -> run(a, "INSERT INTO " + table + " (v) VALUES (1); COMMIT; SELECT * FROM missing_"
                    + tag)).isInstanceOf(SQLException.class);
            assertThat(mariaRows()).as("the server committed A's insert").isEqualTo(1);
            try (Connection b = ds.getConnection()) {
                assertThat(num(b, "SELECT 1")).as("B gets the idle connection").isEqualTo(1);
            }
        }
    }

    /** Contrast (holds): the same text without the failing statement frees the handle. */
    @Test
    void mariaDbAutocommitOffATextThatCommitsFreesTheIdleHandle() throws Exception {
        mariaTable();
        LoomPoolDataSource ds = one(maria(1));
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            run(a, "INSERT INTO " + table + " (v) VALUES (1); COMMIT");
            try (Connection b = ds.getConnection()) {
                assertThat(num(b, "SELECT 1")).as("B gets the idle connection").isEqualTo(1);
            }
        }
    }

    /**
     * PostgreSQL: A's setAutoCommit(true) fails (its commit hits a deferred unique constraint); the
     * server ended the transaction. A keeps its handle open, idle; B must get the connection.
     */
    @Test
    void postgresAFailedSetAutoCommitTrueLeavesAnIdleHandlePinned() throws Exception {
        pgAdmin("CREATE TABLE " + table + " (id int, CONSTRAINT u_" + tag + " UNIQUE (id) DEFERRABLE INITIALLY DEFERRED)");
        pgCleanup.add("DROP TABLE IF EXISTS " + table);
        LoomPoolDataSource ds = one(pg(1));
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            run(a, "INSERT INTO " + table + " VALUES (1), (1)");
            assertThatThrownBy(() -> a.setAutoCommit(true)).isInstanceOf(SQLException.class);
            try (Connection b = ds.getConnection()) {
                assertThat(num(b, "SELECT 1")).as("B gets the idle connection").isEqualTo(1);
            }
        }
    }

    /**
     * PostgreSQL, autocommit on, transaction by SQL: {@code BEGIN}, an insert that breaks a deferred
     * unique constraint, then SQL {@code COMMIT}, which fails; the server ended the transaction. A
     * keeps its handle open, idle; B must get the connection.
     */
    @Test
    void postgresAFailedSqlCommitLeavesAnIdleHandlePinned() throws Exception {
        pgAdmin("CREATE TABLE " + table + " (id int, CONSTRAINT u_" + tag + " UNIQUE (id) DEFERRABLE INITIALLY DEFERRED)");
        pgCleanup.add("DROP TABLE IF EXISTS " + table);
        LoomPoolDataSource ds = one(pg(1));
        try (Connection a = ds.getConnection()) {
            run(a, "BEGIN");
            run(a, "INSERT INTO " + table + " VALUES (1), (1)");
            assertThatThrownBy(() -> run(a, "COMMIT")).isInstanceOf(SQLException.class);
            try (Connection b = ds.getConnection()) {
                assertThat(num(b, "SELECT 1")).as("B gets the idle connection").isEqualTo(1);
            }
        }
    }

    /** PostgreSQL, autocommit off: {@code INSERT …; COMMIT; SELECT * FROM missing}, then idle. */
    @Test
    void postgresAutocommitOffATextThatCommitsThenFailsLeavesAnIdleHandlePinned() throws Exception {
        pgTable();
        LoomPoolDataSource ds = one(pg(1));
        try (Connection a = ds.getConnection()) {
            long pidA = pgPidUnpinned(a);
            a.setAutoCommit(false);
            assertThatThrownBy(() -> run(a, "INSERT INTO " + table + " VALUES (1); COMMIT; SELECT * FROM missing_"
                    + tag)).isInstanceOf(SQLException.class);
            assertThat(pgRows()).as("the server committed A's insert").isEqualTo(1);
            try (Connection pgCheck = TestDatabase.POSTGRES.admin()) {
                assertThat(num(pgCheck, "SELECT count(*) FROM pg_stat_activity WHERE state LIKE 'idle in transaction%' AND pid = "
                        + pidA)).as("the server has no transaction open").isZero();
            }
            try (Connection b = ds.getConnection()) {
                assertThat(num(b, "SELECT 1")).as("B gets the idle connection").isEqualTo(1);
            }
        }
    }
}
