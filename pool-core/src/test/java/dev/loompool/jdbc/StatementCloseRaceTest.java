package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A statement prepared on one thread while another thread closes the handle (issue 26, item 6), on
 * the real servers: the driver's prepare is held in a gate (a test driver in front of the real one)
 * until the handle is closed and B has its connection (maxSize 1). The statement must not stay live
 * on B's connection: MariaDB's {@code cancel()} kills whatever that connection runs, and the old code
 * ran {@code executeUpdate()} into a NullPointerException.
 */
class StatementCloseRaceTest {

    /** Armed: the next prepareStatement signals and waits for the test. */
    static volatile CountDownLatch inPrepare;
    static volatile CountDownLatch letPrepareGo;

    /** jdbc:lentgate:REAL_URL: the real driver's connections, prepareStatement gated as above. */
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
            Connection raw = DriverManager.getConnection(url.substring("jdbc:lentgate:".length()), info);
            InvocationHandler h = (proxy, m, args) -> {
                Object result;
                try {
                    result = m.invoke(raw, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
                if (m.getName().equals("prepareStatement") && inPrepare != null) {
                    CountDownLatch in = inPrepare;
                    inPrepare = null;
                    in.countDown();
                    letPrepareGo.await(10, TimeUnit.SECONDS);
                }
                return result;
            };
            return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, h);
        }

        @Override
        public boolean acceptsURL(String url) {
            return url.startsWith("jdbc:lentgate:");
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
        public Logger getParentLogger() {
            return Logger.getGlobal();
        }
    }

    private final String table = "race_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private final List<LoomPoolDataSource> dss = new ArrayList<>();
    private final ExecutorService exec = Executors.newCachedThreadPool();
    private TestDatabase db;

    @AfterEach
    void drop() throws SQLException {
        exec.shutdownNow();
        dss.forEach(LoomPoolDataSource::close);
        if (db != null) {
            try (Connection c = db.admin(); Statement st = c.createStatement()) {
                st.execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }

    static long single(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aStatementPreparedWhileAnotherThreadClosesTheHandleIsClosedAndCannotReachTheNextBorrower(TestDatabase database)
            throws Exception {
        db = database;
        try (Connection c = db.admin(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE " + table + " (id int PRIMARY KEY)");
        }
        new GateDriver(); // registered
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl("jdbc:lentgate:" + db.url());
        ds.setPoolName("race");
        ds.setMinSize(0);
        ds.setMaxSize(1);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        dss.add(ds);
        boolean postgres = db == TestDatabase.POSTGRES;
        String marker = "sleep_" + table;
        String sleep = postgres ? "SELECT 0 FROM pg_sleep(1.5) WHERE '" + marker + "' <> ''"
                : "SELECT SLEEP(1.5) FROM DUAL WHERE '" + marker + "' <> ''";

        Connection a = ds.getConnection();
        inPrepare = new CountDownLatch(1);
        letPrepareGo = new CountDownLatch(1);
        Future<PreparedStatement> prepared = exec.submit(() -> a.prepareStatement("INSERT INTO " + table + " VALUES (1)"));
        assertThat(inPrepare.await(10, TimeUnit.SECONDS)).isTrue();
        a.close(); // while the other thread is inside the driver's prepareStatement

        try (Connection b = ds.getConnection()) { // A's physical connection (maxSize 1)
            b.setAutoCommit(false);
            try (Statement st = b.createStatement()) {
                st.executeUpdate("INSERT INTO " + table + " VALUES (2)");
            }
            Future<Long> bSleeps = exec.submit(() -> single(b, sleep));
            try (Connection admin = db.admin()) {
                String running = postgres
                        ? "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep%" + marker + "%' AND pid <> pg_backend_pid()"
                        : "SELECT count(*) FROM information_schema.processlist WHERE info LIKE '%SLEEP%" + marker + "%' AND id <> CONNECTION_ID()";
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (single(admin, running) == 0 && System.nanoTime() < end) {
                    Thread.sleep(10);
                }
            }
            letPrepareGo.countDown();
            PreparedStatement ps = null;
            try {
                ps = prepared.get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(SQLException.class).hasMessageContaining("pool 'race'");
            }
            if (ps != null) { // the old code handed it out, live on B's connection
                PreparedStatement late = ps;
                assertThatThrownBy(late::cancel).as("cancel must not reach B's query").isInstanceOf(SQLException.class);
                assertThatThrownBy(late::executeUpdate).isInstanceOf(SQLException.class);
            }
            assertThat(bSleeps.get(10, TimeUnit.SECONDS)).as("B's query ran to its end, not cancelled").isZero();
            b.commit();
        }
        try (Connection c = db.admin()) {
            assertThat(single(c, "SELECT count(*) FROM " + table)).as("B's row only").isEqualTo(1);
            assertThat(single(c, "SELECT max(id) FROM " + table)).isEqualTo(2);
        }
    }
}
