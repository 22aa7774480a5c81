package dev.loompool.jdbc;

import dev.loompool.jdbc.internal.handle.Internals;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Assumptions;

/**
 * Where an integration test finds its real database: the environment variable, else the local
 * default, else a Testcontainers container when Docker answers ({@link TestContainers}). Without
 * any the test is skipped, except under {@code CI=true}, where a missing database fails the build.
 */
public enum TestDatabase {
    POSTGRES("LOOMPOOL_TEST_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"),
    MARIADB("LOOMPOOL_TEST_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/test?user=root");

    private static final Map<TestDatabase, String> REACHABLE = new ConcurrentHashMap<>();

    private final String variable;
    private final String fallback;

    TestDatabase(String variable, String fallback) {
        this.variable = variable;
        this.fallback = fallback;
    }

    /** The URL of a database that answers, or the test is skipped (failed under CI). */
    public String url() {
        return REACHABLE.computeIfAbsent(this, db -> db.find());
    }

    private String find() {
        String url = System.getenv(variable);
        if (url == null || url.isBlank()) {
            url = fallback;
        }
        // The driver matrix (module driver-matrix) runs the MariaDB suites on MySQL Connector/J too, the
        // same server under its scheme, and on drivers that need an option (MariaDB 4 wants TLS by default).
        String scheme = this == MARIADB ? System.getProperty("loompool.test.mariadb-scheme") : null;
        if (scheme != null && !scheme.isBlank()) {
            url = url.replaceFirst("^jdbc:[a-z]+:", scheme);
        }
        String options = this == MARIADB ? System.getProperty("loompool.test.mariadb-options") : null;
        if (options != null && !options.isBlank()) {
            url = url + (url.contains("?") ? "&" : "?") + options;
        }
        DriverManager.setLoginTimeout(3);
        try (Connection c = DriverManager.getConnection(url)) {
            c.isValid(3);
            return url;
        } catch (SQLException e) {
            String container = System.getenv(variable) == null ? TestContainers.url(this) : null;
            if (container != null) {
                return container;
            }
            String why = name() + " is not reachable at " + Internals.redact(url) + " (" + e.getMessage()
                    + "), and Docker does not answer for a container; set " + variable + " or start the server";
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                throw new AssertionError(why, e);
            }
            Assumptions.abort(why);
            throw new AssertionError(why);
        }
    }

    /** A plain connection beside the pool, for looking at the server from outside. */
    public Connection admin() throws SQLException {
        return DriverManager.getConnection(url());
    }
}
