package dev.loompool.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A test driver in front of a real (or stub) one ({@code jdbc:deepgate:<URL>}): stops one thread at
 * one named method of any JDBC object the driver hands out (the connection, a statement, the
 * metadata, a result set; {@link GateDriver} stops connection methods only), and can make one named
 * method throw.
 */
public final class DeepGateDriver extends PrefixDriver {

    static final String PREFIX = "jdbc:deepgate:";

    public DeepGateDriver() {
        super(PREFIX);
    }

    record Gate(Class<?> on, String method, Thread thread, boolean after, CountDownLatch arrived, CountDownLatch open) {

        void awaitArrival() throws InterruptedException {
            if (!arrived.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("no thread reached the gate on " + on.getSimpleName() + "." + method + "()");
            }
        }

        void letGo() {
            open.countDown();
        }
    }

    /** The next call of {@code method} on an object of type {@code on} throws {@code error}. */
    record Fault(Class<?> on, String method, SQLException error) {
    }

    static volatile Gate gate;
    static volatile Fault fault;

    static Gate arm(Class<?> on, String method, Thread thread) {
        Gate g = new Gate(on, method, thread, false, new CountDownLatch(1), new CountDownLatch(1));
        gate = g;
        return g;
    }

    static Gate armAfter(Class<?> on, String method, Thread thread) {
        Gate g = new Gate(on, method, thread, true, new CountDownLatch(1), new CountDownLatch(1));
        gate = g;
        return g;
    }

    @Override
    protected Connection open(String real, Properties info) throws SQLException {
        return wrap(DriverManager.getDriver(real).connect(real, info), Connection.class);
    }

    @SuppressWarnings("unchecked")
    static <T> T wrap(Object target, Class<T> iface) {
        return (T) Proxy.newProxyInstance(DeepGateDriver.class.getClassLoader(), new Class<?>[] {iface}, (proxy, m, args) -> {
            if (m.getName().equals("unwrap") || m.getName().equals("isWrapperFor")) {
                return call(target, m, args);
            }
            Gate g = gate;
            boolean stops = g != null && g.on == iface && g.method.equals(m.getName())
                    && (g.thread == null || g.thread == Thread.currentThread());
            if (stops && !g.after) {
                pass(g);
            }
            Fault f = fault;
            if (f != null && f.on == iface && f.method.equals(m.getName())) {
                fault = null;
                throw f.error;
            }
            Object result = call(target, m, args);
            if (stops && g.after) {
                pass(g);
            }
            if (result instanceof CallableStatement c && !(result instanceof Proxy)) {
                return wrap(c, CallableStatement.class);
            }
            if (result instanceof PreparedStatement p && m.getReturnType() == PreparedStatement.class) {
                return wrap(p, PreparedStatement.class);
            }
            if (result instanceof Statement s && m.getReturnType() == Statement.class) {
                return wrap(s, Statement.class);
            }
            if (result instanceof DatabaseMetaData d) {
                return wrap(d, DatabaseMetaData.class);
            }
            if (result instanceof ResultSet r) {
                return wrap(r, ResultSet.class);
            }
            return result;
        });
    }

    private static void pass(Gate g) throws InterruptedException {
        gate = null;
        g.arrived.countDown();
        if (!g.open.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("gate never opened");
        }
    }

    private static Object call(Object target, java.lang.reflect.Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
