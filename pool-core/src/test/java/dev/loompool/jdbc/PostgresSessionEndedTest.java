package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * Issue 38 on PostgreSQL: pgjdbc closes its connection when the server reports a DateStyle that
 * does not begin with ISO. Borrower A set a session setting and made a temporary table, committed
 * a row, then changed DateStyle. What does A's next call get, what did A commit, what does B see?
 * Beside the plain driver, a connection of its own from open to close.
 */
class PostgresSessionEndedTest extends OnRealDatabases {

    @Test
    void aSessionPgjdbcClosedForDateStyleIsNotContinuedOnAFreshConnection() throws SQLException {
        pgTable();
        String plainEnd;
        String plainNext;
        try (Connection plain = DriverManager.getConnection(TestDatabase.POSTGRES.url())) {
            run(plain, "SET work_mem = '7MB'");
            run(plain, insertOf(TestDatabase.POSTGRES, 1));
            plainEnd = MysqlConnectorSessionTest.sqlState(() -> {
                run(plain, "SET DateStyle = 'German'");
                return null;
            });
            plainNext = MysqlConnectorSessionTest.sqlState(() -> str(plain, "SHOW work_mem"));
        }
        assertThat(plainEnd).as("pgjdbc closes its connection (test premise)").startsWith("08");
        assertThat(plainNext).as("the plain driver's next call (test premise)").isEqualTo("08003");
        String plainCommitted = pgIds();
        pgAdmin("DELETE FROM " + table);

        LoomPoolDataSource ds = pg(1);
        try (Connection a = ds.getConnection()) {
            run(a, "SET work_mem = '7MB'");
            run(a, "CREATE TEMP TABLE wt38a_tmp_" + tag + " (v int)");
            run(a, insertOf(TestDatabase.POSTGRES, 1));
            assertThatThrownBy(() -> run(a, "SET DateStyle = 'German'")).as("A's SET: the driver's error")
                    .isInstanceOf(SQLException.class)
                    .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo(plainEnd))
                    .satisfies(e -> assertThat(e.getSuppressed()).as("what the pool adds to it")
                            .anySatisfy(s -> assertThat(s).hasMessageContaining("pool '" + ds.getPoolName() + "'")
                                    .hasMessageContaining("session this handle relied on")));
            for (String next : new String[] {"SHOW work_mem", "SELECT count(*) FROM wt38a_tmp_" + tag}) {
                assertThatThrownBy(() -> str(a, next)).as("A's next call: %s", next)
                        .isInstanceOf(SQLException.class)
                        .hasMessageContaining("pool '" + ds.getPoolName() + "'")
                        .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("08003"));
            }
        }
        assertThat(pgIds()).as("what A committed").isEqualTo(plainCommitted).isEqualTo("1");
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, "SHOW DateStyle")).as("B's DateStyle").startsWith("ISO");
            assertThat(str(b, "SHOW work_mem")).as("B's work_mem").isNotEqualTo("7MB");
        }
    }
}
