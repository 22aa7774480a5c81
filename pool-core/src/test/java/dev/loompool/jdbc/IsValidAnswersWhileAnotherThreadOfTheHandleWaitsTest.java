package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** isValid(1) on a handle while another thread of it holds the settings' turn and waits in the pool: it answers within about 1 s. */
class IsValidAnswersWhileAnotherThreadOfTheHandleWaitsTest extends OnRealDatabases {

    @Test
    void isValidAnswersWithinItsTimeout() throws Exception {
        LoomPoolDataSource ds = pg(1);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        Connection d = ds.getConnection();
        d.setAutoCommit(false);
        run(d, "SELECT 1");
        Connection c = ds.getConnection();
        Thread a = new Thread(() -> {
            try {
                c.setAutoCommit(false);
            } catch (Throwable ignored) {
            }
        }, "A-turn-in-pool");
        a.start();
        InterruptedHandleWaitEndsTest.awaitPending(ds, 1);
        Object[] valid = new Object[1];
        Thread b = new Thread(() -> {
            try {
                valid[0] = c.isValid(1);
            } catch (Throwable e) {
                valid[0] = e;
            }
        }, "B-isValid");
        long t0 = System.nanoTime();
        b.start();
        b.join(8_000); // under the 10 s acquire timeout a wait for the pool would last
        try {
            assertThat(b.isAlive()).as("isValid(1) still waits after %d ms%n%s", (System.nanoTime() - t0) / 1_000_000,
                    Arrays.toString(b.getStackTrace())).isFalse();
        } finally {
            d.rollback();
            d.close();
            a.join(30_000);
            b.join(30_000);
            c.close();
        }
        assertThat(ds.getPool().stats().inUse()).isZero();
    }
}
