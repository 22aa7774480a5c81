package dev.loompool.spring.slices;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
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

    @BeforeAll
    static void requirePostgres() {
        TestDatabase.POSTGRES.url(); // skips (fails under CI) before the context is loaded
    }

    @DynamicPropertySource
    static void postgres(DynamicPropertyRegistry registry) throws SQLException {
        String url = TestDatabase.POSTGRES.url(); // skipped without PostgreSQL, failed under CI
        try (Connection c = DriverManager.getConnection(url)) {
            c.createStatement().execute("CREATE TABLE IF NOT EXISTS loompool_slice (id int)");
        }
        registry.add("spring.datasource.url", () -> url);
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
        try (Connection outside = DriverManager.getConnection(TestDatabase.POSTGRES.url())) {
            var rs = outside.createStatement().executeQuery("SELECT count(*) FROM loompool_slice WHERE id = 42");
            rs.next();
            assertThat(rs.getInt(1)).as("uncommitted: invisible outside the test's transaction").isZero();
        }
    }
}
