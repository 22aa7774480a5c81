package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Issue 3's headline: 200 virtual threads over maxSize 10 on real PostgreSQL, each querying,
 * waiting outside any transaction, and querying again. Nobody times out, the server never sees
 * more than 10 connections from the pool, and while they all wait no connection is in use.
 */
class VirtualThreadPostgresTest {

    private static final int THREADS = 200;
    private static final int MAX_SIZE = 10;

    @Test
    void twoHundredVirtualThreadsShareTenConnectionsAndHoldNoneWhileTheyWait() throws Exception {
        String app = "loompool-vt-" + UUID.randomUUID().toString().substring(0, 8);
        String url = TestDatabase.POSTGRES.url();
        try (LoomPoolDataSource ds = new LoomPoolDataSource()) {
            ds.setJdbcUrl(url + (url.contains("?") ? "&" : "?") + "ApplicationName=" + app);
            ds.setMinSize(0);
            ds.setMaxSize(MAX_SIZE);
            ds.setPoolName("vt");
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            CountDownLatch waiting = new CountDownLatch(THREADS);
            CountDownLatch go = new CountDownLatch(1);
            AtomicInteger done = new AtomicInteger();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                threads.add(Thread.ofVirtual().start(() -> {
                    try (Connection c = ds.getConnection()) {
                        query(c);
                        Thread.sleep(20); // the slow dependency, outside any transaction
                        waiting.countDown();
                        go.await(1, TimeUnit.MINUTES);
                        query(c);
                        done.incrementAndGet();
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }));
            }
            AtomicLong maxBackends = new AtomicLong();
            Thread watcher = Thread.ofPlatform().daemon().start(() -> watch(app, maxBackends, go));
            assertThat(waiting.await(1, TimeUnit.MINUTES)).as("every thread ran its first query").isTrue();
            assertThat(ds.getPool().stats().inUse()).as("connections in use while all threads wait").isZero();
            assertThat(ds.getOpenHandles()).isEqualTo(THREADS);
            go.countDown();
            for (Thread t : threads) {
                t.join();
            }
            watcher.join();
            assertThat(failures).as("failures, timeouts included").isEmpty();
            assertThat(done).hasValue(THREADS);
            assertThat(maxBackends.get()).as("backends seen in pg_stat_activity").isBetween(1L, (long) MAX_SIZE);
            assertThat(ds.getPool().stats().total()).isLessThanOrEqualTo(MAX_SIZE);
        }
    }

    private static void query(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT 1")) {
            // not pg_backend_pid(): reading the connection's identity pins the handle until close (issue 26)
            rs.next();
        }
    }

    /** Counts the pool's backends from outside until the run ends. */
    private static void watch(String app, AtomicLong max, CountDownLatch go) {
        try (Connection admin = TestDatabase.POSTGRES.admin()) {
            do {
                long n = PostgresIntegrationTest.single(admin,
                        "SELECT count(*) FROM pg_stat_activity WHERE application_name = '" + app + "'");
                max.accumulateAndGet(n, Math::max);
            } while (!go.await(5, TimeUnit.MILLISECONDS) || max.get() == 0);
            for (int i = 0; i < 20; i++) {
                long n = PostgresIntegrationTest.single(admin,
                        "SELECT count(*) FROM pg_stat_activity WHERE application_name = '" + app + "'");
                max.accumulateAndGet(n, Math::max);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
