package dev.loompool.jdbc;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * A JDBC driver for unit tests: {@code jdbc:stub:NAME} connects to the {@link StubDatabase} of
 * that name, which counts connections and can fail on command.
 */
public final class StubDriver implements Driver {

    static final Map<String, StubDatabase> DATABASES = new ConcurrentHashMap<>();

    static {
        try {
            DriverManager.registerDriver(new StubDriver()); // what real drivers do when loaded
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    static StubDatabase database(String name) {
        return DATABASES.computeIfAbsent(name, StubDatabase::new);
    }

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return null;
        }
        return database(url.substring("jdbc:stub:".length())).connect(info);
    }

    @Override
    public boolean acceptsURL(String url) {
        return url != null && url.startsWith("jdbc:stub:");
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
        return new DriverPropertyInfo[0];
    }

    @Override
    public int getMajorVersion() {
        return 1;
    }

    @Override
    public int getMinorVersion() {
        return 0;
    }

    @Override
    public boolean jdbcCompliant() {
        return false;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }
}
