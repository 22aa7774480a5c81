package dev.loompool.jdbc.internal.driver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** Reading the server's transaction state from each real driver, as the pool does before a release. */
class WireStateTest {

    private static void run(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    private static boolean open(WireState wire, Connection c) throws SQLException {
        return wire.transactionOpen(c, c.getAutoCommit());
    }

    @Test
    void pgjdbcSaysIdleOpenAndFailed() throws SQLException {
        try (Connection c = DriverManager.getConnection(TestDatabase.POSTGRES.url())) {
            WireState wire = WireState.of(c);
            assertThat(wire.readable()).isTrue();
            assertThat(open(wire, c)).isFalse();
            run(c, "BEGIN");
            assertThat(open(wire, c)).isTrue();
            try {
                run(c, "SELECT 1/0");
            } catch (SQLException expected) {
                // the transaction is now failed, which is still inside one
            }
            assertThat(open(wire, c)).isTrue();
            run(c, "ROLLBACK");
            assertThat(open(wire, c)).isFalse();
            run(c, "BEGIN; COMMIT AND CHAIN");
            assertThat(open(wire, c)).isTrue();
            run(c, "ABORT");
            c.setAutoCommit(false);
            assertThat(open(wire, c)).as("pgjdbc begins at the first statement").isFalse();
            run(c, "SELECT 1");
            assertThat(open(wire, c)).isTrue();
            c.commit();
            assertThat(open(wire, c)).isFalse();
        }
    }

    @Test
    void mariadbConnectorSaysInTransactionAndAutocommitSwitchedOffBySql() throws SQLException {
        try (Connection c = DriverManager.getConnection(TestDatabase.MARIADB.url())) {
            run(c, "CREATE TABLE IF NOT EXISTS loompool_wire (id int) ENGINE=InnoDB");
            WireState wire = WireState.of(c);
            assertThat(wire.readable()).isTrue();
            assertThat(wire.transactionOpen(c, true)).isFalse();
            run(c, "START TRANSACTION");
            assertThat(wire.transactionOpen(c, true)).isTrue();
            run(c, "ROLLBACK");
            assertThat(wire.transactionOpen(c, true)).isFalse();
            run(c, "/*!40101 SET autocommit = 0 */");
            assertThat(wire.transactionOpen(c, true)).as("autocommit off behind the pool's back").isTrue();
            assertThat(wire.transactionOpen(c, false)).as("as the pool set it, and nothing run yet").isFalse();
            run(c, "SELECT * FROM loompool_wire");
            assertThat(wire.transactionOpen(c, false)).isTrue();
            run(c, "SET autocommit = 1");
            assertThat(wire.transactionOpen(c, true)).isFalse();
        }
    }

    @Test
    void mysqlConnectorSaysInTransaction() throws SQLException {
        String url = TestDatabase.MARIADB.url().replace("jdbc:mariadb:", "jdbc:mysql:");
        try (Connection c = DriverManager.getConnection(url)) {
            WireState wire = WireState.of(c);
            assertThat(wire.readable()).isTrue();
            assertThat(open(wire, c)).isFalse();
            run(c, "START TRANSACTION");
            assertThat(open(wire, c)).isTrue();
            run(c, "COMMIT");
            assertThat(open(wire, c)).isFalse();
        }
    }

    /**
     * MySQL Connector/J keeps the server's status flags too (ServerSession#getStatusFlags): SQL
     * that turns autocommit off behind the driver's back is seen, as with MariaDB Connector/J.
     */
    @Test
    void mysqlConnectorSaysAutocommitSwitchedOffBySql() throws SQLException {
        String url = TestDatabase.MARIADB.url().replace("jdbc:mariadb:", "jdbc:mysql:");
        try (Connection c = DriverManager.getConnection(url)) {
            run(c, "CREATE TABLE IF NOT EXISTS loompool_wire (id int) ENGINE=InnoDB");
            WireState wire = WireState.of(c);
            assertThat(wire.transactionOpen(c, true)).as("a fresh connection").isFalse();
            run(c, "/*!40101 SET autocommit = 0 */");
            assertThat(c.getAutoCommit()).as("the driver did not notice (test premise)").isTrue();
            assertThat(wire.transactionOpen(c, true)).as("autocommit off behind the pool's back").isTrue();
            assertThat(wire.transactionOpen(c, false)).as("as the pool set it, and nothing run yet").isFalse();
            run(c, "SELECT * FROM loompool_wire");
            assertThat(wire.transactionOpen(c, false)).isTrue();
            run(c, "SET autocommit = 1");
            assertThat(wire.transactionOpen(c, true)).isFalse();
        }
    }

    @Test
    void aDriverThatCannotTellIsUnreadable() throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:h2:mem:wire")) {
            assertThat(WireState.of(c).readable()).isFalse();
        }
    }
}
