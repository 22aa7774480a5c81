package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Hundreds of virtual threads share one handle (statements, setters, getters, transactions) while
 * other handles compete for a pool of two: everything finishes, and nothing stays bound or lent.
 */
class ManyVirtualThreadsOfOneHandleAllFinishTest extends OnRealDatabases {

    @Test
    void manyVirtualThreadsOfOneHandleAllFinish() throws Exception {
        LoomPoolDataSource ds = pg(2);
        ds.setAcquireTimeout(Duration.ofSeconds(20));
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        Connection shared = ds.getConnection();
        List<Future<?>> fs = new ArrayList<>();
        long t0 = System.nanoTime();
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 600; i++) {
                int k = i;
                fs.add(ex.submit(() -> {
                    try {
                        switch (k % 6) {
                            case 0 -> run(shared, "SELECT pg_sleep(0.002)");
                            case 1 -> shared.getAutoCommit();
                            case 2 -> { shared.setReadOnly(false); shared.isReadOnly(); }
                            case 3 -> shared.isValid(1);
                            case 4 -> { try (Connection own = ds.getConnection()) { run(own, "SELECT pg_sleep(0.002)"); } }
                            default -> shared.getTransactionIsolation();
                        }
                    } catch (SQLTransientConnectionException e) {
                        errors.add(e);
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(120, TimeUnit.SECONDS);
            }
        }
        assertThat(errors).isEmpty();
        assertThat(shared.unwrap(LoomConnection.class).pinReasons()).isEmpty();
        shared.close();
        assertThat(ds.getPool().stats().inUse()).isZero();
    }
}
