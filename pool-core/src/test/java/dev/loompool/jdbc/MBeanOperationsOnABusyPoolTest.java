package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loompool.CircuitBreakerState;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * The MBean's operations on a pool at work (DESIGN.md §3 "Circuit breaker", idle eviction): a
 * deactivate while a borrower is mid-transaction never loses half its commit; evictIdleConnections
 * racing borrowers never closes a lent connection nor loses a commit; a second pool of the same name
 * never takes or removes the first one's MBean.
 */
class MBeanOperationsOnABusyPoolTest extends PoolOperationsFixtures {

    @Test
    void deactivateWhileAPostgresBorrowerIsMidTransactionNeverLosesHalfItsCommit() throws Exception {
        deactivateMidTransaction(TestDatabase.POSTGRES.url(), "atkops-deact-pg");
    }

    @Test
    void deactivateWhileAMariaDbBorrowerIsMidTransactionNeverLosesHalfItsCommit() throws Exception {
        deactivateMidTransaction(TestDatabase.MARIADB.url(), "atkops-deact-maria");
    }

    private void deactivateMidTransaction(String url, String pool) throws Exception {
        String table = "atkops_deact_" + (url.contains("postgresql") ? "pg" : "maria");
        admin(url, "CREATE TABLE IF NOT EXISTS " + table + " (id int)", "DELETE FROM " + table);
        LoomPoolDataSource ds = ds(pool, url);
        ds.setRegisterMbeans(true);
        ds.start();
        ObjectName name = nameOf(pool);
        Throwable commitFailure;
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            exec(a, "INSERT INTO " + table + " VALUES (1)");
            server.invoke(name, "deactivatePool", null, null);
            try (Connection b = ds.getConnection()) {
                assertThat(catchThrowable(() -> text(b, "SELECT 1"))).as("B fails fast")
                        .isInstanceOf(SQLTransientConnectionException.class);
            }
            commitFailure = catchThrowable(() -> {
                exec(a, "INSERT INTO " + table + " VALUES (2)");
                a.commit();
            });
            if (commitFailure != null) {
                catchThrowable(a::rollback);
            }
        }
        server.invoke(name, "activatePool", null, null);
        long rows = count(url, "SELECT count(*) FROM " + table);
        System.out.println(pool + ": A's commit " + (commitFailure == null ? "returned" : "threw " + commitFailure)
                + "; rows=" + rows);
        if (commitFailure == null) {
            assertThat(rows).as("A's commit returned: both rows").isEqualTo(2);
        } else {
            assertThat(rows).as("A got " + commitFailure + ": neither row").isZero();
        }
        try (Connection c = ds.getConnection()) {
            assertThat(text(c, "SELECT 1")).isEqualTo("1");
        }
        assertThat(server.getAttribute(name, "CircuitBreakerState")).isEqualTo("ACTIVE");
    }

    @Test
    void evictIdleConnectionsRacingBorrowersNeverClosesALentConnectionNorLosesACommit() throws Exception {
        String url = TestDatabase.POSTGRES.url();
        admin(url, "CREATE TABLE IF NOT EXISTS atkops_evict (id int PRIMARY KEY)", "DELETE FROM atkops_evict");
        LoomPoolDataSource ds = ds("atkops-evict", url);
        ds.setMinSize(2);
        ds.setMaxSize(4);
        ds.setRegisterMbeans(true);
        ds.start();
        ObjectName name = nameOf("atkops-evict");
        Set<Integer> committed = ConcurrentHashMap.newKeySet();
        List<String> errors = new CopyOnWriteArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger evicted = new AtomicInteger();
        List<Thread> borrowers = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            int base = t * 10_000;
            borrowers.add(fork("borrower-" + t, () -> {
                for (int i = 0; i < 150; i++) {
                    int id = base + i;
                    try (Connection c = ds.getConnection()) {
                        c.setAutoCommit(false);
                        exec(c, "INSERT INTO atkops_evict VALUES (" + id + ")");
                        text(c, "SELECT count(*) FROM atkops_evict WHERE id = " + id);
                        c.commit();
                        committed.add(id);
                    } catch (SQLException e) {
                        errors.add(id + ": " + e);
                    }
                }
            }));
        }
        fork("evictor", () -> {
            while (!stop.get()) {
                try {
                    evicted.addAndGet((Integer) server.invoke(name, "evictIdleConnections", null, null));
                    int total = (Integer) server.getAttribute(name, "TotalConnections");
                    int idle = (Integer) server.getAttribute(name, "IdleConnections");
                    int active = (Integer) server.getAttribute(name, "ActiveConnections");
                    if (total < 0 || idle < 0 || active < 0) {
                        errors.add("negative count: total=" + total + " idle=" + idle + " active=" + active);
                    }
                    String wrong = countsWrong(ds.getPool().stats());
                    if (wrong != null) {
                        errors.add("counts: " + wrong);
                    }
                } catch (Exception e) {
                    errors.add("evictor: " + e);
                }
            }
        });
        for (Thread b : borrowers) {
            b.join(PATIENCE.toMillis());
        }
        stop.set(true);
        assertThat(errors).isEmpty();
        assertThat(committed).hasSize(8 * 150);
        assertThat(count(url, "SELECT count(*) FROM atkops_evict")).isEqualTo(committed.size());
        assertThat(evicted.get()).as("the race happened: idle connections were evicted").isPositive();
    }

    @Test
    void aSecondPoolOfTheSameNameNeverTakesOrRemovesTheFirstsMBean() throws Exception {
        String url = TestDatabase.POSTGRES.url();
        LoomPoolDataSource first = ds("atkops-twin", url);
        first.setRegisterMbeans(true);
        first.start();
        ObjectName name = nameOf("atkops-twin");
        LoomPoolDataSource second = ds("atkops-twin", url);
        second.setRegisterMbeans(true);
        try (Connection held = first.getConnection()) {
            held.setAutoCommit(false);
            text(held, "SELECT 1");
            Throwable secondStart = catchThrowable(second::start); // README-jmx: fails; PoolMBean: WARN and runs
            assertThat(server.isRegistered(name)).isTrue();
            assertThat(server.getAttribute(name, "ActiveConnections")).as("the first pool's numbers").isEqualTo(1);
            if (secondStart == null) {
                try (Connection c = second.getConnection()) {
                    text(c, "SELECT 1");
                }
            }
            second.close();
            assertThat(server.isRegistered(name)).as("the second's close leaves the first's MBean").isTrue();
            assertThat(server.getAttribute(name, "ActiveConnections")).isEqualTo(1);
            server.invoke(name, "deactivatePool", null, null);
            assertThat(first.getPool().state()).isEqualTo(CircuitBreakerState.INACTIVE);
            assertThat(second.isRunning()).isFalse();
            server.invoke(name, "activatePool", null, null);
            held.commit();
        }
        first.close();
        assertThat(server.isRegistered(name)).isFalse();
    }
}
