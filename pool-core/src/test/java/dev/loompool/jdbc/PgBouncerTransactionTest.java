package dev.loompool.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loompool.testsupport.PgBouncer;
import dev.loompool.testsupport.Prerequisites;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * DESIGN.md §7 on a real PgBouncer 1.18 in transaction mode, started on a private port in front of
 * the shared PostgreSQL with two server connections: many loompool clients run transactions,
 * prepared statements and batches through it, and what would leave state on a session is refused.
 */
class PgBouncerTransactionTest {

    private static final int SERVERS = 2;
    private static PgBouncer bouncer;

    @BeforeAll
    static void startBouncer() throws Exception {
        Prerequisites.pgbouncer();
        Matcher m = Pattern.compile("//([^:/]+):(\\d+)/([^?]+)").matcher(TestDatabase.POSTGRES.url());
        assertTrue(m.find(), "the PostgreSQL test URL names host, port and database");
        bouncer = PgBouncer.start(m.group(1), Integer.parseInt(m.group(2)), m.group(3), SERVERS);
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS pgb_ledger");
            s.execute("CREATE TABLE pgb_ledger (worker int, n int, kind text)");
            s.execute("DROP SEQUENCE IF EXISTS pgb_seq");
            s.execute("CREATE SEQUENCE pgb_seq");
            s.execute("CREATE OR REPLACE PROCEDURE pgb_proc() LANGUAGE sql AS 'SELECT 1'");
        }
    }

    @AfterAll
    static void stopBouncer() throws Exception {
        if (bouncer != null) {
            bouncer.close();
        }
    }

    private static LoomPoolDataSource pool(String extraParams) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setPoolName("pgbouncer-test");
        ds.setJdbcUrl(bouncer.jdbcUrl(extraParams));
        ds.setServerPooler(ServerPooler.PGBOUNCER_TRANSACTION);
        ds.setMinSize(0);
        ds.setMaxSize(8);
        ds.setAcquireTimeout(Duration.ofSeconds(30));
        return ds;
    }

    /**
     * 40 threads over a pool of 8 over 2 server connections: prepared statements run more often
     * than pgjdbc's default prepareThreshold (5), batches, commits and rollbacks. Without the
     * setting, pgjdbc's named statements meet other clients' server connections
     * ({@code prepared statement "S_1" already exists}).
     */
    @Test
    void manyClientsShareTwoServerConnections() throws Exception {
        int workers = 40;
        int rounds = 15;
        AtomicInteger mostServers = new AtomicInteger();
        AtomicBoolean running = new AtomicBoolean(true);
        try (LoomPoolDataSource ds = pool("ApplicationName=pgbouncer-test")) {
            Thread sampler = new Thread(() -> {
                while (running.get()) {
                    try {
                        mostServers.accumulateAndGet(bouncer.pool().servers(), Math::max);
                        Thread.sleep(20);
                    } catch (Exception e) {
                        return;
                    }
                }
            });
            sampler.start();
            ExecutorService threads = Executors.newFixedThreadPool(workers);
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                int worker = w;
                done.add(threads.submit(() -> {
                    for (int r = 0; r < rounds; r++) {
                        round(ds, worker, r);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(); // rethrows the first failure of a worker
            }
            threads.shutdown();
            running.set(false);
            sampler.join();
        }
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FILTER (WHERE kind = 'commit'), "
                        + "count(*) FILTER (WHERE kind = 'rollback') FROM pgb_ledger")) {
            rs.next();
            assertEquals(workers * rounds * 3, rs.getInt(1), "every committed batch row is there");
            assertEquals(0, rs.getInt(2), "no rolled-back row is");
        }
        assertTrue(mostServers.get() <= SERVERS, "PgBouncer used at most " + SERVERS + " server connections, saw "
                + mostServers.get());
    }

    private static void round(LoomPoolDataSource ds, int worker, int round) throws SQLException {
        try (Connection c = ds.getConnection()) {
            try (PreparedStatement ps = c.prepareStatement("SELECT ?::int + 1")) {
                for (int i = 0; i < 8; i++) { // past prepareThreshold=5, where pgjdbc would name it
                    ps.setInt(1, i);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        assertEquals(i + 1, rs.getInt(1));
                    }
                }
            }
            c.setAutoCommit(false);
            insertBatch(c, worker, round, "commit", 3);
            c.commit();
            insertBatch(c, worker, round, "rollback", 2);
            c.rollback();
            c.setAutoCommit(true);
        }
    }

    private static void insertBatch(Connection c, int worker, int round, String kind, int rows) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO pgb_ledger VALUES (?, ?, ?)")) {
            for (int i = 0; i < rows; i++) {
                ps.setInt(1, worker);
                ps.setInt(2, round);
                ps.setString(3, kind);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    @Test
    void sessionStateIsRefusedNamingTheStatementAndTheSetting() throws Exception {
        String[] refused = {"SET search_path TO pg_catalog", "SELECT set_config('app.tenant', 'a', false)",
            "LISTEN pgb_channel", "SELECT pg_advisory_lock(4242)", "PREPARE pgb_q AS SELECT 1",
            "CREATE TEMP TABLE pgb_leak (id int)", "RESET ALL", "SELECT currval('pgb_seq')", "SET local.tenant = 'a'",
            "UPDATE ONLY pg_settings SET setting = 'pg_catalog' WHERE name = 'search_path'",
            "DO $$ BEGIN PERFORM set_config('search_path', 'pg_catalog', false); END $$", "CALL pgb_proc()",
            "SELECT setseed(0.42)", "SELECT set_config('app.tenant', 'a', \"true\") FROM (SELECT false AS \"true\") f"};
        try (LoomPoolDataSource ds = pool(""); Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            for (String sql : refused) {
                SQLException e = assertThrows(SQLException.class, () -> s.execute(sql), sql);
                assertEquals("0A000", e.getSQLState(), sql);
                assertTrue(e.getMessage().contains(sql) && e.getMessage().contains("server-pooler=pgbouncer-transaction")
                        && e.getMessage().contains("pool 'pgbouncer-test'"), e.getMessage());
            }
            SQLException prepared = assertThrows(SQLException.class, () -> c.prepareStatement("SET TIME ZONE 'UTC'"));
            assertEquals("0A000", prepared.getSQLState());
            // The driver's own objects run SQL no check sees, and closing ours resets no server session.
            for (Class<?> driverType : List.of(org.postgresql.PGConnection.class, org.postgresql.core.BaseConnection.class)) {
                SQLException e = assertThrows(SQLException.class, () -> c.unwrap(driverType));
                assertEquals("0A000", e.getSQLState());
            }
            assertEquals("0A000", assertThrows(SQLException.class,
                    () -> s.unwrap(org.postgresql.PGStatement.class)).getSQLState());
            // Another isolation is sent per transaction (PgBouncerIsolationTest); a statement in autocommit mode has none.
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            assertEquals("0A000", assertThrows(SQLException.class, () -> s.execute("SELECT 1")).getSQLState());
            assertThrows(SQLException.class, () -> c.setSchema("pg_catalog"));
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED); // the default: nothing to send
            s.execute("SELECT nextval('pgb_seq')"); // its value is in the result: fine out of a transaction too

            // What ends with the transaction is fine.
            c.setAutoCommit(false);
            s.execute("SET LOCAL statement_timeout = '5s'");
            s.execute("SELECT set_config('app.tenant', 'in-tx', true)");
            s.execute("LOCK TABLE pgb_ledger IN SHARE MODE");
            s.execute("CREATE TEMP TABLE pgb_scratch (id int) ON COMMIT DROP");
            s.execute("SELECT pg_advisory_xact_lock(4243)");
            SQLException currval = assertThrows(SQLException.class, () -> s.execute("SELECT currval('pgb_seq')"));
            assertEquals("0A000", currval.getSQLState(), "in a transaction too: the value may be another client's");
            try (ResultSet rs = s.executeQuery("SELECT current_setting('app.tenant', true)")) {
                rs.next();
                assertEquals("in-tx", rs.getString(1));
            }
            c.commit();
            c.setAutoCommit(true);
        }
        // Nothing reached a server connection: every one PgBouncer has shows the defaults.
        try (Connection plain = java.sql.DriverManager.getConnection(bouncer.jdbcUrl("prepareThreshold=0"));
                Statement s = plain.createStatement()) {
            for (int i = 0; i < 2 * SERVERS; i++) {
                try (ResultSet rs = s.executeQuery("SELECT current_setting('search_path'), "
                        + "coalesce(current_setting('app.tenant', true), '') || coalesce(current_setting('local.tenant', true), ''), "
                        + "(SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid IN (4242, 4243))")) {
                    rs.next();
                    assertFalse(rs.getString(1).startsWith("pg_catalog"), rs.getString(1));
                    assertEquals("", rs.getString(2));
                    assertEquals(0, rs.getInt(3), "no advisory lock is held");
                }
            }
        }
    }

    /** pgjdbc's own trace of what it sends: no DISCARD ALL behind the pooler; one without it (the control). */
    @Test
    void noSessionResetIsSent() throws Exception {
        Logger driver = Logger.getLogger("org.postgresql");
        Queue<String> sent = new ConcurrentLinkedQueue<>();
        Handler capture = capture(sent);
        Level before = driver.getLevel();
        driver.setLevel(Level.FINEST);
        driver.addHandler(capture);
        try {
            try (LoomPoolDataSource ds = pool("")) {
                leaveWork(ds);
            }
            assertTrue(sent.stream().anyMatch(m -> m.contains("pg_sleep")), "the trace shows what was sent");
            assertFalse(sent.stream().anyMatch(m -> m.contains("DISCARD")), "no DISCARD ALL behind PgBouncer");
            sent.clear();
            LoomPoolDataSource direct = new LoomPoolDataSource(); // the control: the same work without the pooler
            direct.setJdbcUrl(TestDatabase.POSTGRES.url());
            direct.setMinSize(0);
            try (direct) {
                leaveWork(direct);
            }
            assertTrue(sent.stream().anyMatch(m -> m.contains("DISCARD ALL")), "without it, the SET is reset");
        } finally {
            driver.removeHandler(capture);
            driver.setLevel(before);
        }
    }

    /** Collects what pgjdbc logs at FINEST, its protocol trace among it. */
    private static Handler capture(Queue<String> sent) {
        return new Handler() {
            @Override
            public void publish(LogRecord r) {
                sent.add(r.getParameters() != null ? java.text.MessageFormat.format(r.getMessage(), r.getParameters())
                        : r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
    }

    /**
     * What makes a pool reset a session (a {@code SET}, refused behind the pooler, which then leaves
     * nothing to reset), and a transaction left open at close.
     */
    private static void leaveWork(LoomPoolDataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("SELECT pg_sleep(0)");
            try {
                s.execute("SET application_name = 'pgb-reset'");
            } catch (SQLException refusedBehindThePooler) {
                assertEquals("0A000", refusedBehindThePooler.getSQLState());
            }
            c.setAutoCommit(false);
            s.execute("INSERT INTO pgb_ledger VALUES (-1, -1, 'rollback')");
        }
    }

    /** pgjdbc's trace: behind the pooler every Parse is unnamed, unless the URL sets a threshold. */
    @Test
    void pgjdbcSendsUnnamedStatementsUnlessTheUrlChooses() throws Exception {
        assertTrue(namedParses(pool("")).isEmpty(), "prepareThreshold=0: no named server-side statement");
        assertFalse(namedParses(pool("prepareThreshold=3")).isEmpty(),
                "PgBouncer 1.21+ with max_prepared_statements: the user's choice stands");
    }

    /** The Parse messages naming a statement (S_1, …) while one prepared statement runs six times on one handle. */
    private static List<String> namedParses(LoomPoolDataSource ds) throws Exception {
        Queue<String> sent = new ConcurrentLinkedQueue<>();
        Logger driver = Logger.getLogger("org.postgresql");
        Handler capture = capture(sent);
        Level before = driver.getLevel();
        driver.setLevel(Level.FINEST);
        driver.addHandler(capture);
        try (ds; Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT 1")) {
            for (int i = 0; i < 6; i++) {
                ps.executeQuery().close();
            }
        } finally {
            driver.removeHandler(capture);
            driver.setLevel(before);
        }
        return sent.stream().filter(m -> m.contains("Parse(stmt=S_")).toList();
    }

    @Test
    void startupRefusesSettingsThePoolerWouldNotKeep() {
        LoomPoolDataSource isolation = pool("");
        isolation.setTransactionIsolation("SERIALIZABLE");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, isolation::start);
        assertTrue(e.getMessage().contains("transactionIsolation") && e.getMessage().contains("PGBOUNCER_TRANSACTION")
                && e.getMessage().contains("default_transaction_isolation"), e.getMessage());
        LoomPoolDataSource init = pool("");
        init.setConnectionInitSql("SET statement_timeout = '5s'");
        e = assertThrows(IllegalArgumentException.class, init::start);
        assertTrue(e.getMessage().contains("connectionInitSql"), e.getMessage());
        LoomPoolDataSource maria = pool("");
        maria.setJdbcUrl("jdbc:mariadb://127.0.0.1:3306/test");
        e = assertThrows(IllegalArgumentException.class, maria::start);
        assertTrue(e.getMessage().contains("NONE"), e.getMessage());
    }
}
