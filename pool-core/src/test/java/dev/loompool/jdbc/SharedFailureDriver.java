package dev.loompool.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A driver that throws one cached exception per URL (up to '?'), as a driver that shares instances
 * would ({@code jdbc:atkops-shared:<key>[?…]}).
 */
final class SharedFailureDriver extends PrefixDriver {
    static final String PREFIX = "jdbc:atkops-shared:";
    private static final Map<String, SQLException> FAILURES = new ConcurrentHashMap<>();
    private static final AtomicBoolean REGISTERED = new AtomicBoolean();

    private SharedFailureDriver() {
        super(PREFIX);
    }

    static void register() throws SQLException {
        if (REGISTERED.compareAndSet(false, true)) {
            DriverManager.registerDriver(new SharedFailureDriver());
        }
    }

    static SQLException failure(String key) {
        return FAILURES.computeIfAbsent(key, k -> new SQLNonTransientConnectionException(
                "Connection refused (" + k + ")", "08001"));
    }

    @Override
    protected Connection open(String rest, Properties info) throws SQLException {
        int q = rest.indexOf('?');
        throw failure(q < 0 ? rest : rest.substring(0, q));
    }
}
