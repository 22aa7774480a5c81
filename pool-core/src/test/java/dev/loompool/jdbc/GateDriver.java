package dev.loompool.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * A test driver in front of a real one ({@code jdbc:gate:<real URL>}): its connections stop one
 * thread at the entry of one named connection method, before the real driver (and its lock) is
 * reached, until the test opens the gate. It widens, deterministically, the moment in which a
 * thread has read which physical connection to call and has not called it yet: a thread preempted
 * there on the real driver behaves the same.
 */
public final class GateDriver implements Driver {

    static final String PREFIX = "jdbc:gate:";

    /** The armed gate: the method it stops, the thread it stops, and the latches. */
    record Gate(String method, Thread thread, CountDownLatch arrived, CountDownLatch open) {
    }

    static volatile Gate gate;

    static Gate arm(String method, Thread thread) {
        Gate g = new Gate(method, thread, new CountDownLatch(1), new CountDownLatch(1));
        gate = g;
        return g;
    }

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return null;
        }
        String real = url.substring(PREFIX.length());
        Connection c = DriverManager.getDriver(real).connect(real, info);
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, m, args) -> {
                    Gate g = gate;
                    if (g != null && g.thread == Thread.currentThread() && g.method.equals(m.getName())) {
                        gate = null;
                        g.arrived.countDown();
                        if (!g.open.await(30, TimeUnit.SECONDS)) {
                            throw new IllegalStateException("gate never opened");
                        }
                    }
                    return call(c, m, args);
                });
    }

    private static Object call(Connection c, Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(c, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
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
