package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * A handle ended by another thread (a watchdog's abort, or a close) while its owner is inside a
 * call: waiting for a connection, or handling the driver's error. Found by a review attack on
 * PostgreSQL (a watchdog aborting requests stuck in pg_sleep or waiting for the pool's only
 * connection); forced here on the stub driver.
 */
class ForeignEndTest extends StubSupport {

    /** Armed: the next isClosed() (BrokenConnections.lost, on the owner's thread) signals and waits. */
    static volatile CountDownLatch inIsClosed;
    static volatile CountDownLatch letIsClosedGo;

    /** jdbc:foreignend:NAME: the stub database NAME, its connections' isClosed() gated as above. */
    public static final class GateDriver implements Driver {
        static {
            try {
                DriverManager.registerDriver(new GateDriver());
            } catch (SQLException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        @Override
        public Connection connect(String url, Properties info) throws SQLException {
            if (!acceptsURL(url)) {
                return null;
            }
            Connection raw = DriverManager.getConnection("jdbc:stub:" + url.substring("jdbc:foreignend:".length()), info);
            InvocationHandler h = (proxy, m, args) -> {
                if (m.getName().equals("isClosed") && inIsClosed != null) {
                    CountDownLatch in = inIsClosed;
                    inIsClosed = null;
                    in.countDown();
                    letIsClosedGo.await(10, TimeUnit.SECONDS);
                }
                try {
                    return m.invoke(raw, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            };
            return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, h);
        }

        @Override public boolean acceptsURL(String url) { return url.startsWith("jdbc:foreignend:"); }
        @Override public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) { return new DriverPropertyInfo[0]; }
        @Override public int getMajorVersion() { return 1; }
        @Override public int getMinorVersion() { return 0; }
        @Override public boolean jdbcCompliant() { return false; }
        @Override public Logger getParentLogger() { return Logger.getGlobal(); }
    }

    /**
     * The owner's statement fails with a connection error (as the abort's own socket close makes
     * it, in Attack15bPgTest) and, inside LogicalConnection.error, between its read of physical and
     * its unbind(), a watchdog's abort (or close) ends the handle and nulls physical: the owner gets
     * a NullPointerException instead of the driver's SQLException.
     */
    private void endDuringOwnersErrorHandling(boolean abort) throws Exception {
        new GateDriver(); // registers
        LoomPoolDataSource ds = dataSource();
        ds.setJdbcUrl("jdbc:foreignend:" + db.name());
        ds.setDriverClassName(GateDriver.class.getName());
        ds.setMaxSize(1);
        Connection c = ds.getConnection();
        c.setAutoCommit(false);
        Statement st = c.createStatement();
        st.execute("INSERT 1");
        stub(1).loseNext(new SQLException("I/O error, connection gone", "08006"));
        inIsClosed = new CountDownLatch(1);
        letIsClosedGo = new CountDownLatch(1);
        CountDownLatch in = inIsClosed;
        AtomicReference<Throwable> ownerGot = new AtomicReference<>();
        Thread owner = new Thread(() -> {
            try {
                st.execute("INSERT 2");
            } catch (Throwable e) {
                ownerGot.set(e);
            }
        }, "owner");
        owner.start();
        assertThat(in.await(10, TimeUnit.SECONDS)).isTrue(); // owner is inside LogicalConnection.error
        if (abort) {
            c.abort(Runnable::run);
        } else {
            c.close();
        }
        letIsClosedGo.countDown();
        owner.join();
        assertThat(ds.getPool().stats().inUse()).isZero();
        assertThat(ds.getOpenHandles()).isZero();
        assertThat(stub(1).sql()).doesNotContain("COMMIT");
        assertThat(ownerGot.get()).as("the owner gets the driver's exception").isInstanceOf(SQLException.class);
    }

    @Test
    void anAbortDuringTheOwnersErrorHandlingLeavesItTheDriversException() throws Exception {
        endDuringOwnersErrorHandling(true);
    }

    @Test
    void aCloseDuringTheOwnersErrorHandlingLeavesItTheDriversException() throws Exception {
        endDuringOwnersErrorHandling(false);
    }

    /** Minimal form of the acquire-wait leak: abort/close while the owner waits for the only connection. */
    private void endWhileOwnerWaits(boolean abort) throws Exception {
        LoomPoolDataSource ds = dataSource();
        ds.setMaxSize(1);
        Connection b = ds.getConnection();
        b.setAutoCommit(false);
        try (Statement s = b.createStatement()) {
            s.execute("INSERT B");
        }
        Connection a = ds.getConnection();
        Thread owner = new Thread(() -> {
            try (Statement st = a.createStatement()) {
                a.setAutoCommit(false);
                st.execute("INSERT A");
                a.commit();
            } catch (SQLException e) {
                // expected: the handle was ended
            } finally {
                try { a.close(); } catch (SQLException ignored) { }
            }
        }, "owner");
        owner.start();
        eventually("owner waits in acquire", () -> owner.getState() == Thread.State.TIMED_WAITING
                || owner.getState() == Thread.State.WAITING);
        if (abort) {
            a.abort(Runnable::run);
        } else {
            a.close();
        }
        b.commit();
        b.close();
        owner.join();
        assertThat(a.isClosed()).isTrue();
        assertThat(ds.getPool().stats().inUse()).as("inUse after everything closed").isZero();
        assertThat(ds.getOpenHandles()).as("open handles after everything closed").isZero();
        assertThat(stub(1).sql()).as("A's work never ran").doesNotContain("INSERT A");
    }

    @Test
    void anAbortWhileTheOwnerWaitsForAConnectionLeaksNothing() throws Exception {
        endWhileOwnerWaits(true);
    }

    @Test
    void aCloseWhileTheOwnerWaitsForAConnectionLeaksNothing() throws Exception {
        endWhileOwnerWaits(false);
    }
}
