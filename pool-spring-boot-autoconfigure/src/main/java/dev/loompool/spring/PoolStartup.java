package dev.loompool.spring;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.sql.SQLException;

/**
 * Starts the auto-configured {@link LoomPoolDataSource}, turning what only start can find (no URL,
 * a URL the driver refuses, min-size above max-size, an unreachable database) into a
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
                            + "spring.datasource.username and spring.datasource.password are right; or set "
                            + "loompool.min-size=0 to start without opening connections.", e);
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
