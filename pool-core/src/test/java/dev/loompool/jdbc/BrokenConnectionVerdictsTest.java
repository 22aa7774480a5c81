package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.CircuitBreakerState;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Broken connections: a transaction lost with its connection is never reported committed (not by
 * setAutoCommit(true), not by SQL COMMIT), and an application error that merely carries a connection
 * SQLState neither destroys the healthy connection nor opens the circuit breaker.
 */
class BrokenConnectionVerdictsTest extends OnRealDatabases {

    /**
     * The connection dies inside A's transaction; A then calls setAutoCommit(true), which by JDBC
     * commits the open transaction. Plain pgjdbc throws (the commit did not happen); the pool returns
     * normally, so A believes row 1 was committed. It was lost.
     */
    @Test
    void pgSetAutoCommitTrueAfterTheConnectionDiedReportsASuccessfulCommit() throws Exception {
        pgTable();
        // reference: the plain driver
        try (Connection plain = TestDatabase.POSTGRES.admin()) {
            plain.setAutoCommit(false);
            run(plain, "INSERT INTO " + table + " VALUES (1)");
            pgAdmin("SELECT pg_terminate_backend(" + pgPid(plain) + ")");
            assertThatThrownBy(() -> run(plain, "INSERT INTO " + table + " VALUES (2)")).isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> plain.setAutoCommit(true)).as("plain pgjdbc").isInstanceOf(SQLException.class);
        }
        setAutoCommitTrueAfterTheConnectionDiedThrows(TestDatabase.POSTGRES, pg(2));
    }

    /** Killed inside A's transaction, then setAutoCommit(true): plain driver throws, the pool claims success. */
    @Test
    void mariaSetAutoCommitTrueAfterTheConnectionDiedReportsASuccessfulCommit() throws Exception {
        mariaTable();
        setAutoCommitTrueAfterTheConnectionDiedThrows(TestDatabase.MARIADB, maria(2));
    }

    /** After the connection is lost in a SQL transaction, SQL COMMIT must not succeed anywhere. */
    @Test
    void pgLostSqlTransactionCannotBeCommittedBySql() throws SQLException {
        pgTable();
        LoomPoolDataSource ds = pg(2);
        try (Connection a = ds.getConnection()) {
            run(a, "BEGIN");
            run(a, "INSERT INTO " + table + " VALUES (1)");
            pgAdmin("SELECT pg_terminate_backend(" + pgPid(a) + ")");
            assertThatThrownBy(() -> run(a, "INSERT INTO " + table + " VALUES (2)")).isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> run(a, "COMMIT")).isInstanceOf(SQLException.class);
            a.rollback();
            run(a, "INSERT INTO " + table + " VALUES (3)");
        }
        assertThat(pgRows()).isEqualTo(1);
    }

    /** An application error that merely carries a connection SQLState must not open the breaker on a healthy database. */
    @Test
    void pgUserRaisedConnectionSqlStateDoesNotOpenTheBreaker() throws SQLException {
        LoomPoolDataSource ds = pg(2);
        ds.setCircuitBreakerFailureThreshold(3);
        Set<Long> pids = new HashSet<>();
        for (int i = 0; i < 4; i++) {
            try (Connection a = ds.getConnection()) {
                a.setAutoCommit(false);
                pids.add(pgPid(a));
                assertThatThrownBy(() -> run(a,
                        "DO $$ BEGIN RAISE EXCEPTION 'business rule failed' USING ERRCODE = '08006'; END $$"))
                        .isInstanceOf(SQLException.class);
                a.rollback();
            }
        }
        assertThat(ds.getPool().state()).as("the database is healthy").isEqualTo(CircuitBreakerState.ACTIVE);
        assertThat(pids).as("the healthy connection was kept, not destroyed").hasSize(1);
    }

    /** A SIGNAL with a connection SQLState is the application's error, not a lost connection. */
    @Test
    void mariaUserSignalledConnectionSqlStateDoesNotOpenTheBreaker() throws SQLException {
        LoomPoolDataSource ds = maria(2);
        ds.setCircuitBreakerFailureThreshold(3);
        Set<Long> ids = new HashSet<>();
        for (int i = 0; i < 4; i++) {
            try (Connection a = ds.getConnection()) {
                ids.add(num(a, "SELECT CONNECTION_ID()"));
                assertThatThrownBy(() -> run(a,
                        "BEGIN NOT ATOMIC SIGNAL SQLSTATE '08006' SET MESSAGE_TEXT = 'business rule failed'; END"))
                        .isInstanceOf(SQLException.class);
            }
        }
        assertThat(ds.getPool().state()).as("the database is healthy").isEqualTo(CircuitBreakerState.ACTIVE);
        assertThat(ids).as("the healthy connection was kept, not destroyed").hasSize(1);
    }
}
