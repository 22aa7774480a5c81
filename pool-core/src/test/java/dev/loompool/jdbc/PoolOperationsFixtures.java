package dev.loompool.jdbc;

import dev.loompool.PoolStats;
import dev.loompool.testsupport.PgCluster;
import dev.loompool.testsupport.Prerequisites;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;

/**
 * Named pools on the real servers for the operations tests (start, the circuit breaker held by
 * hand, the MBean, failed connects): each pool is closed and each forked thread interrupted after
 * the test; a private PostgreSQL cluster that a test may stop is started again for the next; SQL
 * one-liners. Each test asserts the safe behaviour. Tables are prefixed {@code atkops_}.
 */
abstract class PoolOperationsFixtures {

    /** Nothing listens there: pgjdbc's connect is refused at once. */
    static final String CLOSED_PORT = "jdbc:postgresql://127.0.0.1:1/test?user=postgres";
    static final Duration PATIENCE = Duration.ofSeconds(90);
    static final String DB = "atkops";

    private static PgCluster cluster;
    static volatile boolean clusterDown;

    final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    final List<LoomPoolDataSource> dataSources = new CopyOnWriteArrayList<>();
    final List<Thread> threads = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        threads.forEach(Thread::interrupt);
        for (Thread t : threads) {
            t.join(30_000);
        }
        dataSources.forEach(LoomPoolDataSource::close);
        if (cluster != null && clusterDown) {
            cluster.start(); // a test that stopped it leaves it running for the next
            clusterDown = false;
        }
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }

    static PgCluster cluster() throws Exception {
        if (cluster == null) {
            cluster = PgCluster.startWith(Prerequisites.postgresBinaries(), DB, "CREATE TABLE atkops_rows (id int)");
        }
        return cluster;
    }

    LoomPoolDataSource ds(String name, String url) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(url);
        ds.setPoolName(name);
        ds.setMinSize(0);
        ds.setMaxSize(4);
        ds.setAcquireTimeout(Duration.ofSeconds(5));
        dataSources.add(ds);
        return ds;
    }

    Thread fork(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
        return t;
    }

    static void eventually(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("gave up waiting until " + what);
            }
            LockSupport.parkNanos(5_000_000);
        }
    }

    static ObjectName nameOf(String pool) throws Exception {
        return LoomPoolMXBeanTest.nameOf(pool);
    }

    static void exec(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    static String text(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    static long count(String url, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url)) {
            return Long.parseLong(text(c, sql));
        }
    }

    static void admin(String url, String... sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url)) {
            for (String s : sql) {
                exec(c, s);
            }
        }
    }

    /** A snapshot's counts: total = idle + inUse, none negative, total within maxSize; else what is wrong. */
    static String countsWrong(PoolStats s) {
        boolean ok = s.total() == s.idle() + s.inUse() && s.total() >= 0 && s.idle() >= 0 && s.inUse() >= 0
                && s.pending() >= 0 && s.total() <= s.maxSize();
        return ok ? null : s.toString();
    }
}
