package dev.loompool.jdbc;

import static dev.loompool.jdbc.BorrowerScenarios.*;
import static dev.loompool.jdbc.OnRealDatabases.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.CircuitBreakerState;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

/**
 * What the tests on the real databases share: pools, a table of their own, plain queries, and an
 * independent session's view of what was committed; everything they made is dropped after each test.
 */
abstract class OnRealDatabases {

    final String tag = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    final String table = "loompool_atk_" + tag;
    final List<LoomPoolDataSource> dataSources = new ArrayList<>();
    final List<String> pgCleanup = new ArrayList<>();
    final List<String> mariaCleanup = new ArrayList<>();

    @AfterEach
    void cleanup() throws SQLException {
        dataSources.forEach(LoomPoolDataSource::close);
        if (!pgCleanup.isEmpty()) {
            try (Connection c = TestDatabase.POSTGRES.admin(); Statement st = c.createStatement()) {
                for (String sql : pgCleanup) {
                    st.execute(sql);
                }
            }
        }
        if (!mariaCleanup.isEmpty()) {
            try (Connection c = TestDatabase.MARIADB.admin(); Statement st = c.createStatement()) {
                for (String sql : mariaCleanup) {
                    st.execute(sql);
                }
            }
        }
    }

    /** Every text in turn, through each Connector/J. */
    static Stream<Arguments> each(String... texts) {
        List<Arguments> all = new ArrayList<>();
        for (Connector connector : Connector.values()) {
            for (String text : texts) {
                all.add(Arguments.of(connector, text));
            }
        }
        return all.stream();
    }

    // ---- helpers --------------------------------------------------------------------------------

    LoomPoolDataSource pool(TestDatabase db, int maxSize, String urlSuffix, String initSql) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(db.url() + (urlSuffix == null ? "" : urlSuffix));
        ds.setPoolName("hostile-" + db.name().toLowerCase());
        ds.setMinSize(0);
        ds.setMaxSize(maxSize);
        ds.setAcquireTimeout(java.time.Duration.ofSeconds(5));
        if (initSql != null) {
            ds.setConnectionInitSql(initSql);
        }
        dataSources.add(ds);
        return ds;
    }

    /** The two Connector/Js that speak to the MariaDB server: each reads the wire its own way. */
    enum Connector {
        MARIADB_CONNECTOR_J("jdbc:mariadb:"),
        MYSQL_CONNECTOR_J("jdbc:mysql:");

        private final String scheme;

        Connector(String scheme) {
            this.scheme = scheme;
        }

        /** The MariaDB server's URL for this driver, with driver options added ("a=1&b=2"), or none. */
        String url(String options) {
            String url = TestDatabase.MARIADB.url().replace("jdbc:mariadb:", scheme);
            return options == null ? url : url + (url.contains("?") ? "&" : "?") + options;
        }
    }

    /** A pool on the MariaDB server through {@code connector}; a plain connection of the same URL is its reference. */
    LoomPoolDataSource maria(Connector connector, int maxSize, String options) {
        LoomPoolDataSource ds = pool(TestDatabase.MARIADB, maxSize, null, null);
        ds.setJdbcUrl(connector.url(options));
        return ds;
    }

    LoomPoolDataSource pg(int maxSize) {
        return pool(TestDatabase.POSTGRES, maxSize, null, null);
    }

    LoomPoolDataSource maria(int maxSize) {
        return pool(TestDatabase.MARIADB, maxSize, "&allowMultiQueries=true", null);
    }

    static String str(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    static long num(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static void run(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    void pgAdmin(String sql) throws SQLException {
        try (Connection c = TestDatabase.POSTGRES.admin()) {
            run(c, sql);
        }
    }

    void mariaAdmin(String sql) throws SQLException {
        try (Connection c = TestDatabase.MARIADB.admin()) {
            run(c, sql);
        }
    }

    long pgRows() throws SQLException {
        try (Connection c = TestDatabase.POSTGRES.admin()) {
            return num(c, "SELECT count(*) FROM " + table);
        }
    }

    /** The ids committed in the test table, as an independent session sees them: "1,3,6". */
    String pgIds() throws SQLException {
        try (Connection admin = TestDatabase.POSTGRES.admin()) {
            return str(admin, "SELECT string_agg(id::text, ',' ORDER BY id) FROM " + table);
        }
    }

    /** The v values committed in the MariaDB test table, as an independent session sees them: "2,3", or "none". */
    String mariaValues() throws SQLException {
        try (Connection admin = TestDatabase.MARIADB.admin()) {
            return str(admin, "SELECT coalesce(group_concat(v ORDER BY v), 'none') FROM " + table);
        }
    }

    /** The id of the MariaDB test table's row whose v is {@code v}, as an independent session sees it. */
    long idWithV(int v) throws SQLException {
        try (Connection admin = TestDatabase.MARIADB.admin()) {
            return num(admin, "SELECT id FROM " + table + " WHERE v = " + v);
        }
    }

    long mariaRows() throws SQLException {
        try (Connection c = TestDatabase.MARIADB.admin()) {
            return num(c, "SELECT count(*) FROM " + table);
        }
    }

    void pgTable() throws SQLException {
        pgAdmin("CREATE TABLE " + table + " (id int PRIMARY KEY)");
        pgCleanup.add("DROP TABLE IF EXISTS " + table);
    }

    void mariaTable() throws SQLException {
        mariaAdmin("CREATE TABLE " + table + " (id int AUTO_INCREMENT PRIMARY KEY, v int) ENGINE=InnoDB");
        mariaCleanup.add("DROP TABLE IF EXISTS " + table);
    }

    /** The insert of {@code v} into the test table of {@code db}: its id ({@link #pgTable}) or its v ({@link #mariaTable}). */
    String insertOf(TestDatabase db, int v) {
        return "INSERT INTO " + table + (db == TestDatabase.POSTGRES ? "" : " (v)") + " VALUES (" + v + ")";
    }

    static long pgPid(Connection c) throws SQLException {
        return num(c, "SELECT pg_backend_pid()");
    }

    static long myId(Connection c) throws SQLException {
        return num(c, "SELECT CONNECTION_ID()");
    }

    /**
     * The backend's id, read without pg_backend_pid() or CONNECTION_ID(), which pin the handle until
     * it closes (an identity read): for tests whose point is whether the handle stays bound.
     */
    static long pgPidUnpinned(Connection c) throws SQLException {
        return num(c, PostgresPinSemanticsTest.BACKEND_PID);
    }

    static long myIdUnpinned(Connection c) throws SQLException {
        return num(c, MariaDbPinSemanticsTest.connectionId());
    }

    // ---- scenarios on the test table (the static ones: BorrowerScenarios) ----------------------

    /**
     * A (on {@code ds}, a {@link #gated} pool of one) inserts 1 in a transaction and calls
     * commit(), held on its own thread before the driver; the watchdog, on this thread, cleans up A's
     * handle; B gets the connection, inserts 2 in its own transaction; A's commit() goes on, and B
     * rolls back. The test table's value column is {@code column}.
     *
     * @return A's commit(), ended
     */
    GateDriver.Held commitOvertakenBy(LoomPoolDataSource ds, String column, Use watchdog) throws Exception {
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        run(a, "INSERT INTO " + table + " (" + column + ") VALUES (1)");
        GateDriver.Held commit = GateDriver.hold("commit", a::commit);
        watchdog.on(a);
        Connection b = ds.getConnection();
        b.setAutoCommit(false);
        run(b, "INSERT INTO " + table + " (" + column + ") VALUES (2)");
        commit.release();
        b.rollback();
        b.close();
        return commit;
    }
    /**
     * The connection dies inside A's transaction on a handle of {@code ds} (the admin ends A's
     * backend), and A then calls setAutoCommit(true), which by JDBC commits the open transaction: it
     * must throw, as the plain driver does, for the commit did not happen.
     */
    void setAutoCommitTrueAfterTheConnectionDiedThrows(TestDatabase db, LoomPoolDataSource ds) throws SQLException {
        boolean pg = db == TestDatabase.POSTGRES;
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            run(a, insertOf(db, 1));
            if (pg) {
                pgAdmin("SELECT pg_terminate_backend(" + pgPid(a) + ")");
            } else {
                mariaAdmin("KILL CONNECTION " + myId(a));
            }
            assertThatThrownBy(() -> run(a, insertOf(db, 2))).isInstanceOf(SQLException.class);
            Throwable t = null;
            try {
                a.setAutoCommit(true); // JDBC: commits the transaction in progress
            } catch (SQLException e) {
                t = e;
            }
            long committed = pg ? pgRows() : mariaRows();
            assertThat(t).as("setAutoCommit(true) returned normally, but %d rows are committed", committed)
                    .isNotNull();
        }
    }
    /**
     * A inserts into the MariaDB test table, then B, on the other handle of a pool of two, inserts:
     * A's LAST_INSERT_ID() is still A's own row's id, as on the plain driver.
     */
    void mariaLastInsertIdIsTheHandlesOwn() throws SQLException {
        mariaTable();
        LoomPoolDataSource ds = maria(2);
        try (Connection a = ds.getConnection(); Connection b = ds.getConnection()) {
            run(a, insertOf(TestDatabase.MARIADB, 1));
            run(b, insertOf(TestDatabase.MARIADB, 2));
            long aId = idWithV(1);
            assertThat(num(a, "SELECT LAST_INSERT_ID()")).as("plain driver: A's own id").isEqualTo(aId);
        }
    }
}
