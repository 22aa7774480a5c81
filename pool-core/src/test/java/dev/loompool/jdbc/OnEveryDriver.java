package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The borrower scenarios on each of the three drivers (pgjdbc, MariaDB Connector/J and MySQL
 * Connector/J): their URLs, a pool on each, and the plain driver as a {@code DataSource} (a connection
 * of its own each time) to compare with.
 */
final class OnEveryDriver {

    private OnEveryDriver() {
    }


    static final Duration NO_HANG = Duration.ofSeconds(60);

    enum Db { POSTGRES, MARIADB, MYSQL }



    /** A DataSource of the plain driver: a connection of its own each time. */
    record PlainDataSource(String url) implements DataSource {
        @Override public Connection getConnection() throws SQLException { return DriverManager.getConnection(url); }
        @Override public Connection getConnection(String u, String p) throws SQLException { return DriverManager.getConnection(url, u, p); }
        @Override public java.io.PrintWriter getLogWriter() { return null; }
        @Override public void setLogWriter(java.io.PrintWriter out) { }
        @Override public void setLoginTimeout(int seconds) { }
        @Override public int getLoginTimeout() { return 0; }
        @Override public java.util.logging.Logger getParentLogger() { return null; }
        @Override public <T> T unwrap(Class<T> iface) { return null; }
        @Override public boolean isWrapperFor(Class<?> iface) { return false; }
    }
}
