package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** WatchdogCallThenCloseTest on PostgreSQL: the watchdog's rollback() makes it the runner. */
class PostgresWatchdogCallThenCloseTest extends HostileSupport {

    @AfterEach
    void disarm() {
        GateDriver.gate = null;
    }

    @Test
    void postgresAWatchdogRollbackThenCloseLetsAsCommitCommitTheNextBorrowersTransaction() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        ds.setJdbcUrl(GateDriver.PREFIX + TestDatabase.POSTGRES.url());
        ds.setDriverClassName(GateDriver.class.getName());
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        run(a, "INSERT INTO " + table + " (id) VALUES (1)");
        AtomicReference<Throwable> commitFailure = new AtomicReference<>();
        Thread owner = new Thread(() -> {
            try {
                a.commit();
            } catch (Throwable e) {
                commitFailure.set(e);
            }
        }, "owner-A");
        GateDriver.Gate gate = GateDriver.arm("commit", owner);
        owner.start();
        assertThat(gate.arrived().await(10, TimeUnit.SECONDS)).isTrue();
        try { // the watchdog's cleanup, on another thread
            a.rollback();
        } finally {
            a.close();
        }
        Connection b = ds.getConnection();
        b.setAutoCommit(false);
        run(b, "INSERT INTO " + table + " (id) VALUES (2)");
        gate.open().countDown();
        owner.join(15_000);
        b.rollback();
        b.close();
        String committed;
        try (Connection admin = TestDatabase.POSTGRES.admin()) {
            committed = str(admin, "SELECT coalesce(string_agg(id::text, ',' ORDER BY id), 'none') FROM " + table);
        }
        assertThat(committed).as("B rolled back its 2 (A's commit() " + (commitFailure.get() == null ? "returned normally"
                : "threw " + commitFailure.get()) + ")").doesNotContain("2");
    }
}
