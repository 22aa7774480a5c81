package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.jdbc.internal.handle.Internals;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 38, item 1: half-open connections after a quiet moment. A warm pool of four sits idle
 * longer than the pool trusts without a round trip; meanwhile the network forgot its connections
 * without a word (a NAT or firewall that dropped idle flows: packets swallowed, no reset), while the
 * server is fine and new connections work. Eight transactions start at once. Each must get a
 * connection within acquireTimeout: a dead idle connection costs its caller a validation bounded so
 * that a fresh connect still fits in the caller's deadline, not the whole deadline. Before the fix
 * all eight failed ("the database did not complete a connect within 2000 ms"), the hand-out
 * validation of a dead connection taking the whole acquire timeout. The reference is the plain
 * driver's own connection, which sees exactly the eight committed rows.
 */
class HalfOpenConnectionsTest {

    private static final String TABLE = "wt38c_half_open";
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    @Test
    void postgresEightTransactionsAfterTheNetworkForgotTheIdleConnectionsAllSucceed() throws Exception {
        eightTransactionsAllSucceed(TestDatabase.POSTGRES);
    }

    @Test
    void mariaDbEightTransactionsAfterTheNetworkForgotTheIdleConnectionsAllSucceed() throws Exception {
        eightTransactionsAllSucceed(TestDatabase.MARIADB);
    }

    private void eightTransactionsAllSucceed(TestDatabase db) throws Exception {
        String table = TABLE + "_" + db.name().toLowerCase();
        try (Connection plain = db.admin(); Statement st = plain.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + table);
            st.execute("CREATE TABLE " + table + " (id int)");
        }
        toClose.add(() -> {
            try (Connection plain = db.admin(); Statement st = plain.createStatement()) {
                st.execute("DROP TABLE IF EXISTS " + table);
            }
        });
        FreezingProxy proxy = proxyFor(db);
        LoomPoolDataSource ds = new LoomPoolDataSource();
        toClose.add(ds);
        ds.setJdbcUrl(db.url().replaceFirst("//[^/]+/", "//127.0.0.1:" + proxy.port() + "/"));
        ds.setPoolName("half-open-" + db.name().toLowerCase());
        ds.setMinSize(4);
        ds.setMaxSize(4);
        ds.setAcquireTimeout(Duration.ofSeconds(2));
        ds.start();
        assertThat(ds.getPool().stats().idle()).isEqualTo(4);
        Thread.sleep(800); // idle longer than the 500 ms the pool trusts without a round trip
        proxy.dropEstablished();

        ExecutorService threads = Executors.newFixedThreadPool(8);
        toClose.add(threads::shutdownNow);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Void>> transactions = new ArrayList<>();
        for (int i = 1; i <= 8; i++) {
            int id = i;
            transactions.add(threads.submit(() -> {
                go.await();
                try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(false);
                    try (Statement st = c.createStatement()) {
                        st.executeUpdate("INSERT INTO " + table + " VALUES (" + id + ")");
                    }
                    c.commit();
                }
                return null;
            }));
        }
        go.countDown();
        List<String> failures = new ArrayList<>();
        for (Future<Void> t : transactions) {
            try {
                t.get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                failures.add(String.valueOf(e.getCause()));
            }
        }
        assertThat(failures).as("every transaction gets a connection within acquireTimeout").isEmpty();
        try (Connection plain = db.admin(); Statement st = plain.createStatement();
                ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            assertThat(rs.getInt(1)).as("the rows the eight transactions committed, as the plain driver sees them")
                    .isEqualTo(8);
        }
    }

    @Test
    void postgresTheTimeoutSaysWhatTheTimeWentOn() throws Exception {
        theTimeoutSaysWhatTheTimeWentOn(TestDatabase.POSTGRES, 2000);
        // under a second for the validation, which isValid cannot count: the pool's timer ends it
        theTimeoutSaysWhatTheTimeWentOn(TestDatabase.POSTGRES, 1500);
    }

    @Test
    void mariaDbTheTimeoutSaysWhatTheTimeWentOn() throws Exception {
        theTimeoutSaysWhatTheTimeWentOn(TestDatabase.MARIADB, 2000);
        theTimeoutSaysWhatTheTimeWentOn(TestDatabase.MARIADB, 1500);
    }

    /**
     * The network stops answering altogether, new connects included: the caller handed the idle
     * connection still fails at its deadline, and its error says where the time went: the
     * validation of that connection, then the connect that did not complete in what was left.
     */
    private void theTimeoutSaysWhatTheTimeWentOn(TestDatabase db, int acquireMillis) throws Exception {
        FreezingProxy proxy = proxyFor(db);
        LoomPoolDataSource ds = new LoomPoolDataSource();
        toClose.add(ds);
        ds.setJdbcUrl(db.url().replaceFirst("//[^/]+/", "//127.0.0.1:" + proxy.port() + "/"));
        ds.setPoolName("half-open-error-" + db.name().toLowerCase() + "-" + acquireMillis);
        ds.setMinSize(1);
        ds.setMaxSize(1);
        ds.setAcquireTimeout(Duration.ofMillis(acquireMillis));
        ds.start();
        Thread.sleep(800); // idle longer than the 500 ms the pool trusts without a round trip
        proxy.freeze();
        try (Connection c = ds.getConnection()) {
            assertThatThrownBy(() -> {
                try (Statement st = c.createStatement()) { // binds: the acquire is now
                    st.execute("SELECT 1");
                }
            }).isInstanceOf(SQLTransientConnectionException.class)
                    .hasMessageStartingWith("pool '" + ds.getPoolName() + "': no connection within " + acquireMillis + " ms: an idle "
                            + "connection it was handed failed its validation (")
                    .hasMessageContaining(" ms) and was closed, then the database did not complete a new connect in the ")
                    .hasMessageContaining(" ms left (total=")
                    .extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("08001");
        } finally {
            proxy.thaw();
        }
    }

    /** A proxy in front of {@code db}'s server, closed after the test. */
    private FreezingProxy proxyFor(TestDatabase db) throws Exception {
        Matcher hostPort = Pattern.compile("//[^/:]+:(\\d+)/").matcher(db.url());
        assertThat(hostPort.find()).as("host:port in %s", Internals.redact(db.url())).isTrue();
        FreezingProxy proxy = new FreezingProxy(Integer.parseInt(hostPort.group(1)));
        toClose.add(proxy);
        return proxy;
    }
}
