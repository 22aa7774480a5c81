package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.TestDatabase;
import java.sql.Array;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Arrays through Spring's {@link JdbcTemplate} on a real PostgreSQL (issue 26, item 6): the array
 * {@code queryForList} returns still answers after the template gave its connection back, and
 * arrays no longer cost the pool its connections (Hibernate's batch fetch binds one per query).
 */
class PostgresArrayTemplateTest {

    private final LoomPoolDataSource ds = new LoomPoolDataSource();

    PostgresArrayTemplateTest() {
        ds.setJdbcUrl(TestDatabase.POSTGRES.url());
        ds.setPoolName("arrays");
        ds.setMaxSize(3);
    }

    @AfterEach
    void close() {
        ds.close();
    }

    @Test
    void anArrayFromQueryForListAnswersItsResultSetAfterTheTemplateClosedTheConnection() throws Exception {
        List<Map<String, Object>> rows = new JdbcTemplate(ds).queryForList("SELECT array[1, 2] AS a");
        Array array = (Array) rows.get(0).get("a");
        assertThat((Object[]) array.getArray()).containsExactly(1, 2);
        List<Integer> values = new ArrayList<>();
        try (ResultSet rs = array.getResultSet()) {
            assertThat(rs.getStatement()).isNull();
            while (rs.next()) {
                values.add(rs.getInt("VALUE"));
            }
        }
        assertThat(values).containsExactly(1, 2);
    }

    @Test
    void fiveArrayQueriesThroughTheTemplateRunOnOneServerSession() {
        JdbcTemplate jdbc = new JdbcTemplate(ds);
        Set<Object> backends = new HashSet<>();
        int made = -1;
        for (int i = 0; i < 5; i++) {
            Map<String, Object> row = jdbc.queryForMap("SELECT array[1, 2] AS a, pg_backend_pid() AS pid");
            backends.add(row.get("pid"));
            made = made < 0 ? ds.getPool().stats().total() : made;
        }
        assertThat(backends).as("the same backend, reset and reused").hasSize(1);
        assertThat(ds.getPool().stats().total()).as("no connection made after the first query").isEqualTo(made);
    }

    @Test
    void anArrayBoundWithAnyRunsOnTheSameBackendAsTheQueriesAroundIt() {
        JdbcTemplate jdbc = new JdbcTemplate(ds);
        Set<Object> backends = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            List<Integer> found = jdbc.execute((java.sql.Connection c) -> {
                Array ids = c.createArrayOf("int4", new Object[] {1, 2, 3});
                try (var ps = c.prepareStatement("SELECT x FROM generate_series(1, 5) x WHERE x = any (?) ORDER BY x");
                        var pid = c.createStatement()) {
                    ps.setArray(1, ids);
                    List<Integer> xs = new ArrayList<>();
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            xs.add(rs.getInt(1));
                        }
                    }
                    try (ResultSet rs = pid.executeQuery("SELECT pg_backend_pid()")) {
                        rs.next();
                        backends.add(rs.getInt(1));
                    }
                    return xs;
                }
            });
            assertThat(found).containsExactly(1, 2, 3);
        }
        assertThat(backends).as("no new server session per query").hasSize(1);
    }
}
