package dev.loompool.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The fixture of the lent-object tests on a real PostgreSQL (DESIGN.md §4, "Objects that outlive
 * their handle refuse"): a table of pets of its own per test, pools named 'lent' whose server
 * sessions carry the test's application name (terminated after the test, with the table dropped),
 * and the backend id of a connection.
 */
abstract class PostgresLentObjectsFixture {

    final String name = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    final String table = "lent_" + name;
    private final List<LoomPoolDataSource> dss = new ArrayList<>();

    LoomPoolDataSource ds(int max) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(TestDatabase.POSTGRES.url() + "&ApplicationName=lent_" + name);
        ds.setPoolName("lent");
        ds.setMinSize(0);
        ds.setMaxSize(max);
        ds.setAcquireTimeout(Duration.ofSeconds(5));
        dss.add(ds);
        return ds;
    }

    @BeforeEach
    void create() throws SQLException {
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE " + table + " (id int PRIMARY KEY, pet text NOT NULL)");
            st.execute("INSERT INTO " + table + " VALUES (1, 'cat'), (2, 'dog'), (3, 'eel')");
        }
    }

    @AfterEach
    void drop() throws SQLException {
        dss.forEach(LoomPoolDataSource::close);
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement st = c.createStatement()) {
            // a connection the pool failed to take back (the old code's, under a kept LOB) would hold the table
            st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'lent_" + name + "'");
            st.execute("DROP TABLE IF EXISTS " + table);
        }
    }

    static long single(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static long backend(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
