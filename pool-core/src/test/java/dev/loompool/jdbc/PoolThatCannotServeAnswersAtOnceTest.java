package dev.loompool.jdbc;

import static dev.loompool.jdbc.BindingTest.query;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A pool that cannot serve, its connections all taken or its circuit set INACTIVE by hand (DESIGN.md
 * §3 "Circuit breaker", §4 "Errors"): an unbound handle's isValid answers within its timeout and an
 * unbound call fails fast, while a borrower bound to its connection finishes its work.
 */
class PoolThatCannotServeAnswersAtOnceTest extends StubSupport {

    /** isValid(1) on an unbound handle while every connection is taken: an answer within about 1 s. */
    @Test
    void isValidOfAnUnboundHandleWithThePoolExhaustedAnswersWithinItsTimeout() throws Exception {
        LoomPoolDataSource ds = dataSource();
        ds.setMaxSize(1);
        ds.setAcquireTimeout(Duration.ofSeconds(30));
        Connection holder = ds.getConnection();
        holder.setAutoCommit(false);
        query(holder, "SELECT 1");
        Connection unbound = ds.getConnection();
        long t0 = System.nanoTime();
        boolean valid = unbound.isValid(1);
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        System.out.println("[isValid] exhausted pool: " + valid + " in " + took.toMillis() + " ms");
        assertThat(took).isLessThan(Duration.ofMillis(2500));
        assertThat(unbound.unwrap(LoomConnection.class).isBound()).as("the check binds nothing").isFalse();
        holder.rollback();
        holder.close();
        unbound.close();
        assertThat(ds.getOpenHandles()).isZero();
    }

    /**
     * The breaker set INACTIVE by hand while a borrower holds a transaction: that borrower finishes
     * its work on its connection; an unbound handle fails fast with ServiceUnavailableException as
     * cause; once ACTIVE again it works; the count goes back to 0.
     */
    @Test
    void breakerOpenedByHandWhileABorrowerHoldsItsConnection() throws Exception {
        LoomPoolDataSource ds = dataSource();
        ds.setMaxSize(2);
        Connection inTx = ds.getConnection();
        inTx.setAutoCommit(false);
        query(inTx, "INSERT 1");
        Connection unbound = ds.getConnection();
        query(unbound, "SELECT 1"); // used once, unbound now
        ds.getPool().deactivate();
        query(inTx, "INSERT 2"); // its own connection: goes on
        inTx.commit();
        long t0 = System.nanoTime();
        Throwable refused = null;
        try {
            query(unbound, "SELECT 2");
        } catch (SQLException e) {
            refused = e;
        }
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("fails fast").isLessThan(Duration.ofSeconds(1));
        assertThat(refused).isInstanceOf(java.sql.SQLTransientConnectionException.class)
                .hasCauseInstanceOf(dev.loompool.ServiceUnavailableException.class);
        ds.getPool().activate();
        query(unbound, "SELECT 3");
        inTx.close();
        unbound.close();
        assertThat(ds.getOpenHandles()).isZero();
        // The refused call had the housekeeper check the idle connections at once; a check under way
        // holds its connection for a moment: what must not happen is a connection that stays taken.
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (ds.getPool().stats().inUse() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(ds.getPool().stats().inUse()).isZero();
    }
}
