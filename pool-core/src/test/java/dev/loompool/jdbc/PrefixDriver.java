package dev.loompool.jdbc;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * The one base of the tests' own drivers: each answers the URLs that start with its prefix
 * ({@code jdbc:gate:<real URL>}) and says what to do with the rest; the JDBC boilerplate is here.
 */
public abstract class PrefixDriver implements Driver {

    private final String prefix;

    protected PrefixDriver(String prefix) {
        this.prefix = prefix;
    }

    /** What this driver makes of the URL after its prefix (often another driver's URL). */
    protected abstract Connection open(String rest, Properties info) throws SQLException;

    @Override
    public final Connection connect(String url, Properties info) throws SQLException {
        return acceptsURL(url) ? open(url.substring(prefix.length()), info) : null;
    }

    @Override
    public final boolean acceptsURL(String url) {
        return url != null && url.startsWith(prefix);
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
