package dev.loompool.spring;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.sql.SQLException;

/**
 * Starts the auto-configured {@link LoomPoolDataSource}, turning what only start can find (no URL,
 * a URL the driver refuses, min-size above max-size, a database unreachable for longer than
 * {@code loompool.initialization-fail-timeout}) into a
 * {@link LoomPoolStartupException} that says what to change. A value out of its own range never
 * gets here: {@link PoolKeys} refuses it while binding, naming its key.
 */
final class PoolStartup {

    private PoolStartup() {
    }

    static void start(LoomPoolDataSource ds) {
        try {
            ds.start();
        } catch (IllegalArgumentException e) {
            throw new LoomPoolStartupException("Invalid data source configuration: " + e.getMessage(), action(e), e);
        } catch (SQLException e) {
            throw new LoomPoolStartupException("loompool could not start: " + e.getMessage(),
                    "Check that the database is running and reachable at that URL, and that "
                            + "spring.datasource.username and spring.datasource.password are right. To start "
                            + "without the database, set loompool.initialization-fail-timeout=-1ms (the pool "
                            + "connects in the background and requests fail until it answers) or "
                            + "loompool.min-size=0; to wait for a database that starts beside the application, "
                            + "set loompool.initialization-fail-timeout to how long, e.g. 60s.", e);
        }
    }

    /** Start checks the connection (from spring.datasource.* or connection details) and the two sizes together. */
    private static String action(IllegalArgumentException e) {
        String message = String.valueOf(e.getMessage());
        if (message.startsWith("minSize")) {
            return "Make loompool.min-size at most loompool.max-size.";
        }
        return "Check spring.datasource.url and spring.datasource.driver-class-name (or the JdbcConnectionDetails"
                + " bean that supplies them).";
    }
}
