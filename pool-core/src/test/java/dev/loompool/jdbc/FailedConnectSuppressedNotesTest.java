package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A failed connect reaches the caller as the driver threw it with the pool's note suppressed on it
 * (DESIGN.md §4 "Errors"), and the notes never pile up: not over thousands of refused connects, not
 * when the driver shares one exception instance, not across the replicas (§7) tried in turn.
 */
class FailedConnectSuppressedNotesTest extends PoolOperationsFixtures {

    @Test
    void tenThousandFailedConnectsToAClosedPortCarryOneSuppressedNoteEach() throws Exception {
        LoomPoolDataSource ds = ds("atkops-refused", CLOSED_PORT);
        ds.setCircuitBreakerFailureThreshold(1_000_000); // every acquire connects
        ds.start();
        int most = failMany(ds, 10_000, null);
        assertThat(most).as("most suppressed on one thrown exception").isLessThanOrEqualTo(1);
    }

    @Test
    void aDriverThatSharesOneExceptionInstanceDoesNotPileUpSuppressedNotes() throws Exception {
        SharedFailureDriver.register();
        LoomPoolDataSource ds = ds("atkops-shared", SharedFailureDriver.PREFIX + "one");
        ds.setCircuitBreakerFailureThreshold(1_000_000);
        ds.start();
        Set<Throwable> distinct = Collections.newSetFromMap(new ConcurrentHashMap<>());
        failMany(ds, 10_000, distinct);
        assertThat(distinct).as("the driver's one instance, the cause of each caller's exception").hasSize(1);
        assertThat(SharedFailureDriver.failure("one").getSuppressed()).as("nothing added to it").isEmpty();
    }

    /**
     * Two replicas whose driver caches one exception per URL (or one for all), read-only work, no
     * fallback: the replica loop adds each replica's failure to the first one's suppressed list.
     */
    @Test
    void replicasWhoseDriverSharesExceptionsDoNotPileUpSuppressedNotes() throws Exception {
        SharedFailureDriver.register();
        LoomPoolDataSource ds = ds("atkops-shared-replicas", TestDatabase.POSTGRES.url());
        ds.setReplicas(List.of(SharedFailureDriver.PREFIX + "r1", SharedFailureDriver.PREFIX + "r2"));
        ds.setReplicaMinSize(0);
        ds.setReplicaFallbackToPrimary(false);
        ds.setCircuitBreakerFailureThreshold(1_000_000);
        ds.start();
        int most = 0;
        List<Throwable> odd = new ArrayList<>();
        // 2,000, not 10,000: each failure rescans the growing list (10,000 took 337 s and left 5,001 suppressed)
        for (int i = 0; i < 2_000; i++) {
            try (Connection c = ds.getConnection()) {
                c.setReadOnly(true);
                text(c, "SELECT 1");
                odd.add(new AssertionError("a dead replica served"));
            } catch (SQLException e) {
                most = Math.max(most, e.getSuppressed().length);
            } catch (RuntimeException e) {
                odd.add(e);
            }
        }
        assertThat(odd).isEmpty();
        assertThat(most).as("most suppressed on one thrown exception").isLessThanOrEqualTo(4);
    }

    /** The same, with one instance for every URL: the loop must not suppress an exception into itself. */
    @Test
    void replicasWhoseDriverSharesOneInstanceForAllUrlsFailWithAnSqlException() throws Exception {
        SharedFailureDriver.register();
        LoomPoolDataSource ds = ds("atkops-shared-same", TestDatabase.POSTGRES.url());
        ds.setReplicas(List.of(SharedFailureDriver.PREFIX + "same?a", SharedFailureDriver.PREFIX + "same?b"));
        ds.setReplicaMinSize(0);
        ds.setReplicaFallbackToPrimary(false);
        ds.setCircuitBreakerFailureThreshold(1_000_000);
        ds.start();
        try (Connection c = ds.getConnection()) {
            c.setReadOnly(true);
            assertThat(catchThrowable(() -> text(c, "SELECT 1"))).isInstanceOf(SQLException.class);
        }
    }

    /** 8 threads fail {@code n} acquires in all; the most suppressed exceptions seen on one thrown. */
    private int failMany(LoomPoolDataSource ds, int n, Set<Throwable> distinct) throws InterruptedException {
        AtomicInteger left = new AtomicInteger(n);
        AtomicInteger most = new AtomicInteger();
        List<Throwable> odd = new CopyOnWriteArrayList<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            workers.add(fork("failing-" + t, () -> {
                while (left.getAndDecrement() > 0) {
                    try (Connection c = ds.getConnection()) {
                        text(c, "SELECT 1");
                        odd.add(new AssertionError("served"));
                    } catch (SQLException e) {
                        most.accumulateAndGet(e.getSuppressed().length, Math::max);
                        if (distinct != null) {
                            distinct.add(e.getCause()); // the driver's, beneath the pool's exception naming the pool
                        }
                    } catch (RuntimeException e) {
                        odd.add(e);
                    }
                }
            }));
        }
        for (Thread w : workers) {
            w.join(PATIENCE.toMillis() * 2);
        }
        assertThat(odd).isEmpty();
        assertThat(left.get()).as("all attempts made").isLessThanOrEqualTo(0);
        return most.get();
    }
}
