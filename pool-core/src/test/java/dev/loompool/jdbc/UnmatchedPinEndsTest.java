package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The explicit and Spring transaction pins end only what they began: an endFrameworkTransaction
 * without a begin, or an unpin without a pin, never lets go of a JDBC transaction, and ends out of
 * order leave nothing bound once every pin has ended.
 */
class UnmatchedPinEndsTest extends OnRealDatabases {

    /**
     * endFrameworkTransaction without a begin, and unpin without a pin, in the middle of a JDBC
     * transaction: neither may let go of it. A's rollback undoes A's insert; B never sees it.
     */
    @Test
    void unmatchedEndsInsideTransactionDoNotLetItGoOnPostgres() throws Exception {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        try (Connection a = ds.getConnection()) {
            LoomConnection la = a.unwrap(LoomConnection.class);
            a.setAutoCommit(false);
            run(a, "INSERT INTO " + table + " VALUES (1)");
            long pid = pgPid(a);
            ds.setAcquireTimeout(Duration.ofMillis(500)); // once A is connected: B's wait only
            la.endFrameworkTransaction();
            la.unpin();
            la.pin();
            la.pin();
            la.unpin(); // ends both: a set, not a count
            assertThat(la.isBound()).isTrue();
            // B on another thread must not get A's connection (the pool has one).
            CompletableFuture<Long> b = CompletableFuture.supplyAsync(() -> {
                try (Connection c = ds.getConnection()) {
                    return pgPid(c);
                } catch (SQLException e) {
                    return -1L;
                }
            });
            assertThat(b.get(5, TimeUnit.SECONDS)).isEqualTo(-1L);
            assertThat(pgPid(a)).isEqualTo(pid);
            assertThat(num(a, "SELECT count(*) FROM " + table)).isEqualTo(1);
            a.rollback();
        }
        assertThat(pgRows()).isZero();
    }

    /** Framework transaction begun, JDBC transaction committed, framework ended twice: nothing stays bound. */
    @Test
    void frameworkEndsOutOfOrderLeaveNothingBoundOnPostgres() throws SQLException {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        try (Connection a = ds.getConnection()) {
            LoomConnection la = a.unwrap(LoomConnection.class);
            la.beginFrameworkTransaction();
            a.setAutoCommit(false);
            run(a, "INSERT INTO " + table + " VALUES (1)");
            la.endFrameworkTransaction(); // before the commit: the JDBC transaction still holds it
            assertThat(la.isBound()).isTrue();
            a.commit();
            la.endFrameworkTransaction();
            a.setAutoCommit(true);
            assertThat(la.isBound()).isFalse();
            assertThat(la.pinReasons()).isEmpty();
        }
        assertThat(pgIds()).isEqualTo("1");
        assertThat(ds.getPool().stats().inUse()).isZero();
    }
}
