package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * State that no reset removes (issue 26, item 4): the connection must be retired, not lent to B.
 * A did this; what does B see?
 */
class UnresettableSessionTest extends OnRealDatabases {

    /** The statements B can read back from the profiling history of its session. */
    static List<String> profiles(Connection c) throws SQLException {
        List<String> queries = new ArrayList<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW PROFILES")) {
            while (rs.next()) {
                queries.add(rs.getString("Query"));
            }
        }
        return queries;
    }

    @Test
    void mariaProfilingHistoryOfAIsNotShownToB() throws SQLException {
        LoomPoolDataSource ds = maria(1);
        try (Connection a = ds.getConnection()) {
            run(a, "SET profiling = 1");
            run(a, "SELECT 'secret of A " + tag + "'");
        }
        try (Connection b = ds.getConnection()) {
            assertThat(profiles(b)).as("B's profiling history").noneMatch(q -> q.contains(tag));
        }
    }

    private LoomPoolDataSource mariaWithoutDatabase() {
        String url = TestDatabase.MARIADB.url().replaceFirst("(jdbc:mariadb://[^/]+)/[^?]*", "$1/");
        LoomPoolDataSource ds = pool(TestDatabase.MARIADB, 1, null, null);
        ds.setJdbcUrl(url);
        return ds;
    }

    private void bDoesNotInsertIntoTheDatabaseAChose(boolean bySql) throws SQLException {
        String db = "loompool_db_" + tag;
        mariaAdmin("CREATE DATABASE " + db);
        mariaCleanup.add("DROP DATABASE IF EXISTS " + db);
        mariaAdmin("CREATE TABLE " + db + ".t (v int)");
        LoomPoolDataSource ds = mariaWithoutDatabase();
        try (Connection a = ds.getConnection()) {
            if (bySql) {
                run(a, "USE " + db);
            } else {
                a.setCatalog(db);
            }
            run(a, "SELECT count(*) FROM t");
        }
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, "SELECT coalesce(DATABASE(), 'none')")).as("B's database").isEqualTo("none");
        }
        try (Connection admin = TestDatabase.MARIADB.admin()) {
            assertThat(num(admin, "SELECT count(*) FROM " + db + ".t")).isZero();
        }
    }

    @Test
    void mariaUseOnAConnectionWithoutADatabaseIsNotInheritedByB() throws SQLException {
        bDoesNotInsertIntoTheDatabaseAChose(true);
    }

    @Test
    void mariaSetCatalogOnAConnectionWithoutADatabaseIsNotInheritedByB() throws SQLException {
        bDoesNotInsertIntoTheDatabaseAChose(false);
    }

    @Test
    void postgresLoadedLibraryIsNotInheritedByB() throws SQLException {
        LoomPoolDataSource ds = pg(1);
        long pidA;
        try (Connection a = ds.getConnection()) {
            pidA = pgPid(a);
            run(a, "LOAD 'passwordcheck'");
        }
        try (Connection b = ds.getConnection()) {
            assertThat(pgPid(b)).as("B's backend is not the one that loaded the library").isNotEqualTo(pidA);
        }
    }
}
