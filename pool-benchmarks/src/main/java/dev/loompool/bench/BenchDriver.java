package dev.loompool.bench;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * Two drivers for the benchmarks. {@code jdbc:bench:stub?parkMicros=N} makes do-nothing
 * connections whose queries park the thread N µs (0: return at once), so that the pool is all
 * there is to measure. {@code jdbc:bench:count:<real url>} delegates to the real driver and counts
 * connect attempts, to see how hard each pool hammers a database that is down.
 */
public final class BenchDriver implements Driver {

    static final String STUB = "jdbc:bench:stub";
    static final String COUNTING = "jdbc:bench:count:";
    static final AtomicLong CONNECT_ATTEMPTS = new AtomicLong();

    static {
        try {
            DriverManager.registerDriver(new BenchDriver());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Makes sure the driver is registered (pools that look drivers up by URL need it). */
    static void register() {
        // class initialisation did it
    }

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        if (url.startsWith(COUNTING)) {
            CONNECT_ATTEMPTS.incrementAndGet();
            return DriverManager.getConnection(url.substring(COUNTING.length()), info);
        }
        if (!url.startsWith(STUB)) {
            return null;
        }
        int i = url.indexOf("parkMicros=");
        long parkNanos = i < 0 ? 0 : Long.parseLong(url.substring(i + "parkMicros=".length())) * 1_000;
        return new StubConnection(parkNanos);
    }

    @Override
    public boolean acceptsURL(String url) {
        return url.startsWith(STUB) || url.startsWith(COUNTING);
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
