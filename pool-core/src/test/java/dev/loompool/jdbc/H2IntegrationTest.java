package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** The embedded database the sample app runs on: no session reset, so session state retires a connection. */
class H2IntegrationTest {

    @Test
    void transactionsCommitAndSessionStateRetiresTheConnection() throws SQLException {
        try (LoomPoolDataSource ds = new LoomPoolDataSource()) {
            ds.setJdbcUrl("jdbc:h2:mem:loompool_it;DB_CLOSE_DELAY=-1");
            ds.setUsername("sa");
            ds.setMinSize(1);
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE TABLE IF NOT EXISTS account (id INT PRIMARY KEY, balance INT)");
                c.setAutoCommit(false);
                st.executeUpdate("INSERT INTO account VALUES (1, 100)");
                c.commit();
            }
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("SET @x = 1");
            }
            assertThat(ds.getPool().stats().total()).as("refilled to minSize after the retirement").isLessThanOrEqualTo(1);
            try (Connection c = ds.getConnection()) {
                assertThat(PostgresIntegrationTest.single(c, "SELECT balance FROM account WHERE id = 1")).isEqualTo(100);
                assertThat(PostgresIntegrationTest.text(c, "SELECT COALESCE(CAST(@x AS VARCHAR), 'none')")).isEqualTo("none");
            }
        }
    }
}
