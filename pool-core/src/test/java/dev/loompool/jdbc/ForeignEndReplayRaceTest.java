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
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * A close on another thread while the owner's bind replays the handle's settings (a round trip on
 * PostgreSQL): the owner's work is refused, and the connection goes back reset (review attack).
 */
class ForeignEndReplayRaceTest extends StubSupport {

    static volatile CountDownLatch inReplay;
    static volatile CountDownLatch letReplayGo;

    public static final class ReplayGateDriver implements Driver {
        static {
            try {
                DriverManager.registerDriver(new ReplayGateDriver());
            } catch (SQLException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        @Override
        public Connection connect(String url, Properties info) throws SQLException {
            if (!acceptsURL(url)) {
                return null;
            }
            Connection raw = DriverManager.getConnection("jdbc:stub:" + url.substring("jdbc:replaygate:".length()), info);
            InvocationHandler h = (proxy, m, args) -> {
                if (m.getName().equals("setAutoCommit") && Boolean.FALSE.equals(args[0]) && inReplay != null) {
                    CountDownLatch in = inReplay;
                    inReplay = null;
                    in.countDown();
                    letReplayGo.await(10, TimeUnit.SECONDS);
                }
                try {
                    return m.invoke(raw, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            };
            return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, h);
        }

        @Override public boolean acceptsURL(String url) { return url.startsWith("jdbc:replaygate:"); }
        @Override public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) { return new DriverPropertyInfo[0]; }
        @Override public int getMajorVersion() { return 1; }
        @Override public int getMinorVersion() { return 0; }
        @Override public boolean jdbcCompliant() { return false; }
        @Override public Logger getParentLogger() { return Logger.getGlobal(); }
    }

    @Test
    void aCloseDuringTheSettingsReplayLeaksNothing() throws Exception {
        new ReplayGateDriver();
        LoomPoolDataSource ds = dataSource();
        ds.setJdbcUrl("jdbc:replaygate:" + db.name());
        ds.setDriverClassName(ReplayGateDriver.class.getName());
        ds.setMaxSize(1);
        ds.setAcquireTimeout(Duration.ofSeconds(1));
        Connection a = ds.getConnection();
        a.setAutoCommit(false); // binds (a transaction begins)…
        a.commit(); // …and lets go: the handle's settings are replayed at its next binding
        a.setReadOnly(true);
        a.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
        inReplay = new CountDownLatch(1);
        letReplayGo = new CountDownLatch(1);
        CountDownLatch in = inReplay;
        AtomicReference<Throwable> ownerGot = new AtomicReference<>();
        Thread owner = new Thread(() -> {
            try {
                Statement st = a.createStatement();
                st.execute("INSERT A");
                st.close();
            } catch (Throwable e) {
                ownerGot.set(e);
            } finally {
                try { a.close(); } catch (SQLException ignored) { }
            }
        }, "owner");
        owner.start();
        assertThat(in.await(10, TimeUnit.SECONDS)).isTrue(); // owner is in bind(), past isOpen(), replaying
        a.close(); // another thread (a watchdog) closes the handle
        letReplayGo.countDown();
        owner.join();
        assertThat(a.isClosed()).isTrue();
        assertThat(ownerGot.get()).as("the owner's work on a closed handle is refused").isInstanceOf(SQLException.class);
        assertThat(stub(1).sql()).as("A's work never ran").doesNotContain("INSERT A");
        assertThat(ds.getPool().stats().inUse()).as("inUse after everything closed").isZero();
        assertThat(ds.getOpenHandles()).as("open handles after everything closed").isZero();
        try (Connection b = ds.getConnection()) {
            assertThat(b.getAutoCommit()).isTrue();
            assertThat(b.isReadOnly()).isFalse();
        }
    }
}
