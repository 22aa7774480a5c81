package dev.loompool.spring.slices;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.jdbc.test.autoconfigure.AutoConfigureTestDatabase;
import org.springframework.boot.jdbc.test.autoconfigure.JdbcTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A slice on the real PostgreSQL with {@code replace = NONE}: loompool serves it, the test's
 * transaction runs on one connection, and the rollback at its end really rolls back (a second
 * connection outside the pool sees nothing).
 */
@JdbcTest
@AutoConfigureTestDatabase(replace = AutoConfigureTestDatabase.Replace.NONE)
class PostgresJdbcSliceTest {

    static final String URL = System.getenv().getOrDefault("LOOMPOOL_TEST_POSTGRES_URL",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    @DynamicPropertySource
    static void postgres(DynamicPropertyRegistry registry) {
        try (Connection c = DriverManager.getConnection(URL)) {
            c.createStatement().execute("CREATE TABLE IF NOT EXISTS loompool_slice (id int)");
        } catch (SQLException e) {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                throw new AssertionError("PostgreSQL is not reachable", e);
            }
            Assumptions.abort("PostgreSQL is not reachable: " + e.getMessage());
        }
        registry.add("spring.datasource.url", () -> URL);
    }

    @Autowired
    DataSource dataSource;

    @Autowired
    JdbcTemplate jdbc;

    @Test
    void aSliceOnPostgresRunsOnLoomPoolInOneTransaction() throws SQLException {
        assertThat(dataSource).isInstanceOf(LoomPoolDataSource.class);
        jdbc.update("INSERT INTO loompool_slice VALUES (42)");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM loompool_slice WHERE id = 42", Integer.class))
                .as("the test's own insert, on its pinned connection").isEqualTo(1);
        try (Connection outside = DriverManager.getConnection(URL)) {
            var rs = outside.createStatement().executeQuery("SELECT count(*) FROM loompool_slice WHERE id = 42");
            rs.next();
            assertThat(rs.getInt(1)).as("uncommitted: invisible outside the test's transaction").isZero();
        }
    }
}
