package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loompool.testsupport.PgCluster;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * Starting against a PostgreSQL that is down or not there, under initializationFailTimeout
 * (DESIGN.md §4 "Start"): the database coming back under load never yields more than maxSize or a
 * half-initialised connection; a close or an interrupt during the start's retries ends it and
 * leaves no MBean; a dead replica does not stop the start.
 */
class PostgresStartWhileDownTest extends PoolOperationsFixtures {

    /**
     * The database comes back while 12 borrowers hammer a pool of maxSize=2 that started empty: the
     * server must never see more than 2 of its backends, and no borrower may get a connection whose
     * connectionInitSql did not run or whose default isolation was not applied.
     */
    @Test
    void aDatabaseComingBackUnderLoadNeverYieldsMoreThanMaxSizeOrAHalfInitialisedConnection() throws Exception {
        PgCluster pg = cluster();
        pg.stop();
        clusterDown = true;
        LoomPoolDataSource ds = ds("atkops-comeback", pg.jdbcUrl(DB, "connectTimeout=2"));
        ds.setMinSize(2);
        ds.setMaxSize(2);
        ds.setInitializationFailTimeout(Duration.ofMillis(-1));
        ds.setCircuitBreakerFailureThreshold(1_000_000); // every request tries its own connect
        ds.setConnectionInitSql("SET atkops.inited = 'yes'");
        ds.setTransactionIsolation("SERIALIZABLE");
        ds.setAcquireTimeout(Duration.ofSeconds(3));
        ds.start();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger served = new AtomicInteger();
        List<String> anomalies = new CopyOnWriteArrayList<>();
        AtomicInteger mostBackends = new AtomicInteger();
        for (int i = 0; i < 12; i++) {
            fork("borrower-" + i, () -> {
                while (!stop.get()) {
                    try (Connection c = ds.getConnection()) {
                        String seen = text(c, "SELECT coalesce(current_setting('atkops.inited', true), '<unset>') || ' '"
                                + " || current_setting('transaction_isolation')");
                        if (!"yes serializable".equals(seen)) {
                            anomalies.add("a borrower saw: " + seen);
                        }
                        served.incrementAndGet();
                    } catch (SQLException expectedWhileDown) {
                        // refused while the server is down
                    }
                    String wrong = countsWrong(ds.getPool().stats());
                    if (wrong != null) {
                        anomalies.add("counts: " + wrong);
                    }
                }
            });
        }
        fork("sampler", () -> {
            while (!stop.get()) {
                try {
                    mostBackends.accumulateAndGet(pg.clientBackends(DB, Set.of()), Math::max);
                } catch (SQLException down) {
                    // the server is down
                }
                LockSupport.parkNanos(2_000_000);
            }
        });
        LockSupport.parkNanos(Duration.ofMillis(1500).toNanos());
        pg.start();
        clusterDown = false;
        eventually("borrowers are served", () -> served.get() >= 2000);
        stop.set(true);
        for (Thread t : threads) {
            t.join(30_000);
        }
        assertThat(anomalies).isEmpty();
        assertThat(mostBackends.get()).as("backends the server saw at once").isLessThanOrEqualTo(2);
    }

    /** close() on another thread while a positive initializationFailTimeout start retries: close must not wait out the start. */
    @Test
    void closeWhileTheStartRetriesReturnsPromptlyAndLeavesNoMBean() throws Exception {
        LoomPoolDataSource ds = ds("atkops-close-while-starting", CLOSED_PORT);
        ds.setMinSize(1);
        ds.setInitializationFailTimeout(Duration.ofMinutes(10));
        ds.setRegisterMbeans(true);
        ObjectName name = nameOf("atkops-close-while-starting");
        AtomicReference<Throwable> startFailure = new AtomicReference<>();
        Thread starting = fork("starting", () -> {
            try {
                ds.start();
            } catch (Throwable e) {
                startFailure.set(e);
            }
        });
        eventually("the start registers its MBean and retries", () -> server.isRegistered(name));
        LockSupport.parkNanos(Duration.ofMillis(500).toNanos());
        CountDownLatch closed = new CountDownLatch(1);
        fork("closing", () -> {
            ds.close();
            closed.countDown();
        });
        boolean closeReturned = closed.await(60, TimeUnit.SECONDS); // vs. a 10-minute start: generous
        starting.interrupt(); // the cleanup, whatever happened: ends the start's wait
        starting.join(30_000);
        assertThat(closeReturned).as("close() returned while the start was still retrying (10 min timeout)").isTrue();
        eventually("close finished", () -> closed.getCount() == 0);
        assertThat(server.isRegistered(name)).isFalse();
        assertThat(ds.isRunning()).isFalse();
    }

    @Test
    void anInterruptWhileTheStartRetriesFailsItAndUnregistersTheMBean() throws Exception {
        LoomPoolDataSource ds = ds("atkops-interrupted", CLOSED_PORT);
        ds.setMinSize(2);
        ds.setInitializationFailTimeout(Duration.ofMinutes(10));
        ds.setRegisterMbeans(true);
        ObjectName name = nameOf("atkops-interrupted");
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean flag = new AtomicBoolean();
        Thread starting = fork("starting", () -> {
            try {
                ds.start();
            } catch (Throwable e) {
                failure.set(e);
            }
            flag.set(Thread.currentThread().isInterrupted());
        });
        eventually("registered", () -> server.isRegistered(name));
        LockSupport.parkNanos(Duration.ofMillis(400).toNanos());
        starting.interrupt();
        starting.join(60_000);
        assertThat(starting.isAlive()).isFalse();
        assertThat(failure.get()).isInstanceOf(SQLException.class).hasMessageContaining("interrupted");
        assertThat(flag.get()).isTrue();
        assertThat(server.isRegistered(name)).isFalse();
        assertThat(ds.isRunning()).isFalse();
        // and the data source can still be closed, and then started again it refuses
        ds.close();
        assertThat(catchThrowable(ds::start)).isInstanceOf(SQLException.class);
    }

    /** A negative timeout with a replica that is down: the primary serves writes; read-only work falls back. */
    @Test
    void aNegativeTimeoutWithADeadReplicaStartsAndThePrimaryCommits() throws Exception {
        String url = TestDatabase.POSTGRES.url();
        admin(url, "CREATE TABLE IF NOT EXISTS atkops_replica (id int)", "DELETE FROM atkops_replica");
        LoomPoolDataSource ds = ds("atkops-replica-down", url);
        ds.setMinSize(1);
        ds.setReplicas(List.of(CLOSED_PORT));
        ds.setReplicaMinSize(1);
        ds.setReplicaFallbackToPrimary(true);
        ds.setInitializationFailTimeout(Duration.ofMillis(-1));
        ds.start();
        assertThat(ds.isRunning()).isTrue();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            exec(c, "INSERT INTO atkops_replica VALUES (1)");
            c.commit();
        }
        try (Connection c = ds.getConnection()) {
            c.setReadOnly(true);
            assertThat(text(c, "SELECT count(*) FROM atkops_replica")).isEqualTo("1");
        }
        assertThat(count(url, "SELECT count(*) FROM atkops_replica")).isEqualTo(1);
    }
}
