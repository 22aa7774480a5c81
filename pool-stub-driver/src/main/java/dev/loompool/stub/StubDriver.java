package dev.loompool.stub;

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
 * A JDBC driver without a database, for loompool's tests and benchmarks: {@code jdbc:stub:NAME}
 * connects to the {@link StubDatabase} of that name (everything after {@code jdbc:stub:} is the
 * name), made on first use.
 *
 * <p>Loading this class registers the driver with {@code DriverManager}, as real drivers do;
 * {@link #database} loads it, so a caller that names its database first needs no service file.
 */
public final class StubDriver implements Driver {

    static final String PREFIX = "jdbc:stub:";
    private static final Map<String, StubDatabase> DATABASES = new ConcurrentHashMap<>();

    static {
        try {
            DriverManager.registerDriver(new StubDriver());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The database behind {@code jdbc:stub:NAME}; a new one is strict (see {@link StubConnection}). */
    public static StubDatabase database(String name) {
        return DATABASES.computeIfAbsent(name, StubDatabase::new);
    }

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return null; // DriverManager asks every driver: another one's URL
        }
        return database(url.substring(PREFIX.length())).connect(info);
    }

    @Override
    public boolean acceptsURL(String url) {
        return url != null && url.startsWith(PREFIX);
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
