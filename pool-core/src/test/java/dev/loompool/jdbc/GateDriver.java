package dev.loompool.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A test driver in front of a real one ({@code jdbc:gate:<real URL>}): its connections stop one
 * thread at one named connection method until the test opens the gate. Stopped at the entry, before
 * the real driver (and its lock) is reached, it widens, deterministically, the moment in which a
 * thread has read which physical connection to call and has not called it yet: a thread preempted
 * there on the real driver behaves the same. Stopped after the call, it holds a thread that has its
 * result and has not used it yet.
 */
public final class GateDriver extends PrefixDriver {

    static final String PREFIX = "jdbc:gate:";

    public GateDriver() {
        super(PREFIX);
    }

    /**
     * The armed gate: the method it stops, the thread it stops (any if null), whether it stops after
     * the real call rather than before, and the latches.
     */
    record Gate(String method, Thread thread, boolean afterTheCall, CountDownLatch arrived, CountDownLatch open) {

        /** Waits until the stopped thread has reached the gate. */
        void awaitArrival() throws InterruptedException {
            if (!arrived.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("no thread reached the gate on " + method + "()");
            }
        }

        boolean stops(Method m) {
            return (thread == null || thread == Thread.currentThread()) && method.equals(m.getName());
        }
    }

    static volatile Gate gate;

    /** Stops {@code thread} at the entry of {@code method}. */
    static Gate arm(String method, Thread thread) {
        return arm(new Gate(method, thread, false, new CountDownLatch(1), new CountDownLatch(1)));
    }

    /** Stops the first thread whose call of {@code method} has returned from the real driver. */
    static Gate armAfter(String method) {
        return arm(new Gate(method, null, true, new CountDownLatch(1), new CountDownLatch(1)));
    }

    private static Gate arm(Gate g) {
        gate = g;
        return g;
    }

    /** Points {@code ds} at {@code realUrl} through this driver. */
    static LoomPoolDataSource route(LoomPoolDataSource ds, String realUrl) {
        ds.setJdbcUrl(PREFIX + realUrl);
        ds.setDriverClassName(GateDriver.class.getName());
        return ds;
    }

    /** A call of the owner's on its handle. */
    @FunctionalInterface
    interface Call {
        void run() throws Exception;
    }

    /** The owner's call, held at the gate on its own thread, and how it ended once let go. */
    record Held(Thread owner, Gate gate, AtomicReference<Throwable> failure) {

        /** Opens the gate and waits for the owner's call to end. */
        void release() throws InterruptedException {
            gate.open().countDown();
            owner.join(15_000);
        }

        /** For failure messages: "returned normally", or "threw ...". */
        String outcome() {
            return failure.get() == null ? "returned normally" : "threw " + failure.get();
        }
    }

    /** Starts {@code call} on a new thread "owner-A" and returns once it is stopped at the entry of the driver's {@code method}. */
    static Held hold(String method, Call call) throws InterruptedException {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread owner = new Thread(() -> {
            try {
                call.run();
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "owner-A");
        Gate g = arm(method, owner);
        owner.start();
        g.awaitArrival();
        return new Held(owner, g, failure);
    }

    @Override
    protected Connection open(String real, Properties info) throws SQLException {
        Connection c = DriverManager.getDriver(real).connect(real, info);
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, m, args) -> {
                    Gate g = gate;
                    if (g == null || !g.stops(m)) {
                        return call(c, m, args);
                    }
                    if (!g.afterTheCall()) {
                        pass(g);
                        return call(c, m, args);
                    }
                    Object result = call(c, m, args);
                    pass(g);
                    return result;
                });
    }

    /** Disarms the gate, tells the test the thread is there, and waits for the test to open it. */
    private static void pass(Gate g) throws InterruptedException {
        gate = null;
        g.arrived.countDown();
        if (!g.open.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("gate never opened");
        }
    }

    private static Object call(Connection c, Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(c, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
