package dev.loompool.jdbc;

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
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

/** What the hostile probes share: pools, tables and plain queries on the real databases, cleaned up after each test. */
abstract class HostileSupport {

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

    // ---- a watchdog's cleanup while A's call is on its way to the driver ---------------------------

    /** {@code ds} through {@link GateDriver}, waiting up to 10 s for a connection while a gate holds one. */
    static LoomPoolDataSource gated(LoomPoolDataSource ds) {
        GateDriver.route(ds, ds.getJdbcUrl());
        ds.setAcquireTimeout(java.time.Duration.ofSeconds(10));
        return ds;
    }

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

    /** A watchdog's usual cleanup of a stuck handle, which makes its thread the connection's runner. */
    static void rollbackThenClose(Connection a) throws SQLException {
        try {
            a.rollback();
        } finally {
            a.close();
        }
    }

    // ---- borrower A, then borrower B ----------------------------------------------------------------

    /** What a borrower does on its handle. */
    @FunctionalInterface
    interface Use {
        void on(Connection c) throws SQLException;
    }

    /** What a borrower reads on its handle. */
    @FunctionalInterface
    interface Look {
        String on(Connection c) throws SQLException;
    }

    /** What borrower B saw, and on which backend: A's, or a new one because the pool retired A's. */
    record Seen(long aBackend, long bBackend, String value) {
        /** For failure messages: "B on A's backend 12 saw [x]". */
        @Override
        public String toString() {
            return (aBackend == bBackend ? "B on A's backend " + aBackend : "B on a new backend " + bBackend
                    + " (A's " + aBackend + " was retired)") + " saw [" + value + "]";
        }
    }

    /**
     * Borrower A uses a handle of {@code ds} (maxSize 1) and closes it; borrower B then borrows the
     * pool's only connection and looks. A's backend is read on a handle of its own before A's:
     * however the pool classifies that read, A's handle starts clean and lets go by A's SQL alone.
     */
    static Seen pgAfterA(LoomPoolDataSource ds, Use a, Look b) throws SQLException {
        return afterA(ds, HostileSupport::pgPidUnpinned, a, b);
    }

    /** {@link #pgAfterA} on MariaDB, with either Connector/J. */
    static Seen mariaAfterA(LoomPoolDataSource ds, Use a, Look b) throws SQLException {
        return afterA(ds, HostileSupport::myIdUnpinned, a, b);
    }

    private static Seen afterA(LoomPoolDataSource ds, Backend backend, Use a, Look b) throws SQLException {
        long aBackend;
        try (Connection c = ds.getConnection()) {
            aBackend = backend.of(c);
        }
        try (Connection c = ds.getConnection()) {
            a.on(c);
        }
        try (Connection c = ds.getConnection()) {
            return new Seen(aBackend, backend.of(c), b.on(c));
        }
    }

    /** How a test reads a handle's backend id. */
    @FunctionalInterface
    interface Backend {
        long of(Connection c) throws SQLException;
    }
}
