package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code commit()} and {@code rollback()} with autocommit on answer as the driver does without the
 * pool (issue 38): A believes it opened a transaction; the plain driver tells it (pgjdbc 25P01,
 * MySQL Connector/J), or accepts the call (MariaDB Connector/J). What A inserted is committed either
 * way, and B sees it.
 */
class AutoCommitCallsTest extends OnRealDatabases {

    /** What {@code call} does on {@code c} after an insert in autocommit mode: "ok" or the SQLState. */
    private String outcome(Connection c, boolean commit, String insert) throws SQLException {
        run(c, insert);
        run(c, "SELECT 1"); // the insert's value pin ends: through the pool, the handle holds no connection now
        try {
            if (commit) {
                c.commit();
            } else {
                c.rollback();
            }
            return "ok";
        } catch (SQLException e) {
            return "refused " + e.getSQLState();
        }
    }

    private void compare(String url, LoomPoolDataSource ds, String table, boolean commit) throws SQLException {
        String plain;
        try (Connection c = DriverManager.getConnection(url)) {
            plain = outcome(c, commit, "INSERT INTO " + table + " VALUES (1)");
        }
        String pooled;
        try (Connection a = ds.getConnection()) {
            pooled = outcome(a, commit, "INSERT INTO " + table + " VALUES (2)");
            assertThat(a.unwrap(LoomConnection.class).isBound()).as("A holds nothing after the call").isFalse();
        }
        assertThat(pooled).as("loompool answers as the plain driver (" + url.substring(0, 16) + ")").isEqualTo(plain);
        try (Connection b = ds.getConnection()) {
            assertThat(num(b, "SELECT count(*) FROM " + table + " WHERE id = 2")).as("A's insert was committed").isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"POSTGRES"})
    void postgresCommitAndRollbackWithAutocommitOnAreRefusedAsByTheDriver(TestDatabase db) throws SQLException {
        for (boolean commit : new boolean[] {true, false}) {
            String t = "acc_" + tag + (commit ? "c" : "r");
            try (Connection admin = db.admin()) {
                run(admin, "CREATE TABLE " + t + " (id int)");
            }
            pgCleanup.add("DROP TABLE IF EXISTS " + t);
            compare(db.url(), pg(1), t, commit);
        }
    }

    @ParameterizedTest
    @EnumSource(Connector.class)
    void mariaDbCommitAndRollbackWithAutocommitOnAnswerAsEachConnectorJ(Connector connector) throws SQLException {
        for (boolean commit : new boolean[] {true, false}) {
            String t = "acc_" + tag + (commit ? "c" : "r") + connector.ordinal();
            try (Connection admin = TestDatabase.MARIADB.admin()) {
                run(admin, "CREATE TABLE " + t + " (id int)");
            }
            mariaCleanup.add("DROP TABLE IF EXISTS " + t);
            compare(connector.url(null), maria(connector, 1, null), t, commit);
        }
    }

    @Test
    void postgresTheDriverRefusesCommitWithAutocommitOnThroughThePool() throws SQLException {
        String t = "acc_" + tag + "p";
        try (Connection admin = TestDatabase.POSTGRES.admin()) {
            run(admin, "CREATE TABLE " + t + " (id int)");
        }
        pgCleanup.add("DROP TABLE IF EXISTS " + t);
        try (Connection a = pg(1).getConnection()) {
            run(a, "INSERT INTO " + t + " VALUES (3)");
            assertThat(outcome(a, true, "INSERT INTO " + t + " VALUES (4)")).isEqualTo("refused 25P01");
        }
    }
}
