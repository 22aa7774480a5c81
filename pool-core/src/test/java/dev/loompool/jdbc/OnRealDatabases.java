package dev.loompool.jdbc;

import static dev.loompool.jdbc.BorrowerScenarios.*;
import static dev.loompool.jdbc.PlainQueries.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.CircuitBreakerState;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
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
import java.time.Duration;
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
    /** Other pools to close after the test (a HikariCP reference pool), last made first closed. */
    final List<AutoCloseable> extras = new ArrayList<>();

    @AfterEach
    void cleanup() throws Exception {
        for (int i = extras.size() - 1; i >= 0; i--) {
            extras.get(i).close();
        }
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

    // ---- per database: its table, what is committed there, pools ------------------------------

    void table(TestDatabase db) throws SQLException {
        if (db == TestDatabase.POSTGRES) {
            pgTable();
        } else {
            mariaTable();
        }
    }
    String tableRows(TestDatabase db) throws SQLException {
        return db == TestDatabase.POSTGRES ? String.valueOf(pgIds()) : mariaValues();
    }
    LoomPoolDataSource ds(TestDatabase db, int max) {
        LoomPoolDataSource ds = pool(db, max, db == TestDatabase.MARIADB ? "&allowMultiQueries=true" : null, null);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        return ds;
    }
    LoomPoolDataSource one(TestDatabase db) {
        LoomPoolDataSource ds = pool(db, 1, db == TestDatabase.MARIADB ? "&allowMultiQueries=true" : null, null);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        return ds;
    }
    HikariDataSource hikari(String url, String driverClass) {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(url);
        if (driverClass != null) {
            cfg.setDriverClassName(driverClass);
        }
        cfg.setMaximumPoolSize(1);
        cfg.setMinimumIdle(0);
        cfg.setConnectionTimeout(10_000);
        cfg.setPoolName("reference-hikari");
        HikariDataSource ds = new HikariDataSource(cfg);
        extras.add(ds);
        return ds;
    }
    String committed(TestDatabase db) throws SQLException {
        return db == TestDatabase.POSTGRES ? String.valueOf(pgIds()) : mariaValues();
    }
    /** An insert of v that takes {@code seconds}: its text contains {@code marker}. */
    String slowInsert(TestDatabase db, int v, int seconds, String marker) {
        return db == TestDatabase.POSTGRES
                ? "INSERT INTO " + table + " SELECT " + v + " AS " + marker + " FROM pg_sleep(" + seconds + ")"
                : "INSERT INTO " + table + " (v) SELECT " + v + " AS " + marker + " FROM (SELECT SLEEP(" + seconds + ")) s";
    }
    String url(OnEveryDriver.Db db) {
        return switch (db) {
            case POSTGRES -> TestDatabase.POSTGRES.url();
            case MARIADB -> Connector.MARIADB_CONNECTOR_J.url(null);
            case MYSQL -> Connector.MYSQL_CONNECTOR_J.url(null);
        };
    }
    LoomPoolDataSource loom(OnEveryDriver.Db db, int size) {
        return db == OnEveryDriver.Db.POSTGRES ? pg(size) : maria(db == OnEveryDriver.Db.MYSQL ? Connector.MYSQL_CONNECTOR_J : Connector.MARIADB_CONNECTOR_J, size, null);
    }

    // ---- the PostgreSQL write-path objects (DESIGN.md §4, "Per-statement values") -----------------


    final String seq = table + "_sq";
    /** A volatile function that reads lastval() by dynamic SQL the catalog cannot read: the pool must discard first. */
    final String peekVolatile = table + "_peekv()";
    /** The same, declared STABLE. */
    final String peekStable = table + "_peeks()";

    /** {@code table} (id serial, v), {@code table_o} (id serial, v), a sequence and the peek functions; before the pool starts. */
    void pgWritePathObjects() throws SQLException {
        pgCleanup.add("DROP TABLE IF EXISTS " + table + ", " + table + "_o CASCADE");
        pgCleanup.add("DROP FUNCTION IF EXISTS " + peekVolatile + ", " + peekStable + " CASCADE");
        pgCleanup.add("DROP SEQUENCE IF EXISTS " + seq + " CASCADE");
        pgAdmin("CREATE TABLE " + table + " (id serial PRIMARY KEY, v int)");
        pgAdmin("CREATE TABLE " + table + "_o (id serial PRIMARY KEY, v int)");
        pgAdmin("CREATE SEQUENCE " + seq);
        for (String f : new String[] {peekVolatile + " RETURNS bigint LANGUAGE plpgsql VOLATILE",
            peekStable + " RETURNS bigint LANGUAGE plpgsql STABLE"}) {
            pgAdmin("CREATE FUNCTION " + f + " AS $f$ DECLARE v bigint; BEGIN EXECUTE 'SELECT last' || 'val()' INTO v;"
                    + " RETURN v; END $f$");
        }
    }
}
