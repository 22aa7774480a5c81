package dev.loompool.spring.slices;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.jdbc.test.autoconfigure.AutoConfigureTestDatabase;
import org.springframework.boot.jdbc.test.autoconfigure.JdbcTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.TestPropertySource;

/**
 * {@code @JdbcTest} with {@code replace = NONE} tests what the application ships: loompool, with
 * Spring's test transaction pinned to one connection (the insert is visible to the next query of
 * the same test, and rolled back after it).
 */
@JdbcTest
@AutoConfigureTestDatabase(replace = AutoConfigureTestDatabase.Replace.NONE)
@TestPropertySource(properties = "spring.datasource.url=jdbc:h2:mem:jdbc-slice;DB_CLOSE_DELAY=-1")
class JdbcSliceTest {

    @Autowired
    DataSource dataSource;

    @Autowired
    JdbcTemplate jdbc;

    @Test
    void theSliceGetsLoomPoolAndItsTransactionOnOneConnection() {
        assertThat(dataSource).isInstanceOf(LoomPoolDataSource.class);
        jdbc.execute("CREATE TABLE IF NOT EXISTS slice_t (id int)");
        jdbc.update("INSERT INTO slice_t VALUES (1)");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM slice_t", Integer.class)).isEqualTo(1);
        assertThat(((LoomPoolDataSource) dataSource).getPinnedConnections().values().stream()
                .mapToInt(Integer::intValue).sum()).as("the test's transaction pins").isPositive();
    }
}
