package dev.loompool.jdbc.internal.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.PoolClock;
import dev.loompool.jdbc.internal.handle.Handles;
import dev.loompool.jdbc.internal.physical.JdbcPool;
import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import dev.loompool.jdbc.internal.physical.Watcher;
import dev.loompool.stub.StubConnection;
import dev.loompool.stub.StubDatabase;
import dev.loompool.stub.StubDriver;
import java.lang.ref.Reference;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The reclaim rules (DESIGN.md §4, "Coroutine end"), as the {@link Reclaimer}'s scans apply them,
 * driven scan by scan on a hand-moved clock with its periodic scans stopped: a handle dropped
 * without close is reclaimed (rolled back, returned) once the collector cleared its watch; a handle
 * whose owner thread ended is reported once, and reclaimed only with reclaimOnOwnerExit, a full
 * period after that was seen, and only if no other thread used it since; a binding held longer
 * than leakDetectionThreshold is reported once.
 */
class ReclaimerTest {

    private static final AtomicInteger DATABASE_NUMBER = new AtomicInteger();
    private static final long PERIOD = TimeUnit.MILLISECONDS.toNanos(Watcher.PERIOD_MILLIS);
    private static final String INSERT = "INSERT INTO t VALUES (1)";

    private final StubDatabase db = StubDriver.database("reclaimer" + DATABASE_NUMBER.incrementAndGet());
    private long now = 1_000_000_000_000L;
    private final PoolClock clock = () -> now;
    private final List<JdbcPool> pools = new ArrayList<>();

    /** Started as the data source starts it, but scanned only when the test says. */
    private JdbcPool start(ConfigBuilder b) throws SQLException {
        JdbcPool pool = b.start(clock);
        pools.add(pool);
        pool.watcher.stop(); // its periodic scans: pool.scanNow() still scans
        return pool;
    }

    @AfterEach
    void closePools() {
        pools.forEach(JdbcPool::close);
    }

    /** A handle in a transaction: autocommit off and a row inserted, on the calling thread. */
    private static Connection inTransaction(JdbcPool pool) throws SQLException {
        Connection h = Handles.open(pool);
        h.setAutoCommit(false);
        try (Statement st = h.createStatement()) {
            st.execute(INSERT);
        }
        return h;
    }

    /** What {@code work} returns, made on a thread that has ended when this returns. */
    private static Connection onAnEndedThread(ThrowingSupplier work) throws Exception {
        AtomicReference<Connection> made = new AtomicReference<>();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread owner = new Thread(() -> {
            try {
                made.set(work.get());
            } catch (Throwable t) {
                failed.set(t);
            }
        }, "reclaimer-test-owner");
        owner.start();
        owner.join();
        if (failed.get() != null) {
            throw new AssertionError("the owner thread failed", failed.get());
        }
        return made.get();
    }

    @FunctionalInterface
    private interface ThrowingSupplier {
        Connection get() throws Exception;
    }

    private static PhysicalConnection only(JdbcPool pool) {
        assertThat(pool.connections).hasSize(1);
        return pool.connections.iterator().next();
    }

    @Test
    void aHandleDroppedWithoutCloseIsReclaimedOnceTheCollectorClearedItsWatch() throws Exception {
        JdbcPool pool = start(new ConfigBuilder(db.url()));
        Connection h = inTransaction(pool);
        PhysicalConnection p = only(pool);
        StubConnection stub = db.connection(1);
        assertThat(pool.handles.open(List.of(pool))).isEqualTo(1);

        pool.scanNow();
        assertThat(p.holderWatch()).as("seen bound at one scan: still held strongly").isNull();
        pool.scanNow();
        Reference<?> watch = p.holderWatch();
        assertThat(watch).as("bound across a whole period: held weakly from now on").isNotNull();
        assertThat(pool.reclaimed.get()).isZero();

        watch.clear(); // what the collector does once the application dropped the handle
        pool.scanNow();

        assertThat(pool.reclaimed.get()).isEqualTo(1);
        assertThat(p.binding()).as("returned to the pool").isZero();
        assertThat(stub.sql()).as("its transaction rolled back").containsExactly(INSERT, "ROLLBACK");
        assertThat(stub.getAutoCommit()).as("and its settings reset").isTrue();
        assertThat(pool.handles.open(List.of(pool))).as("counted down").isZero();
        assertThat(pool.pool.stats().idle()).isEqualTo(1);

        pool.scanNow();
        assertThat(pool.reclaimed.get()).as("once").isEqualTo(1);
        Reference.reachabilityFence(h);
    }

    @Test
    void aHandleWhoseOwnerEndedIsReportedOnceAndNotReclaimedWithoutReclaimOnOwnerExit() throws Exception {
        JdbcPool pool = start(new ConfigBuilder(db.url()));
        Connection h = onAnEndedThread(() -> inTransaction(pool));
        PhysicalConnection p = only(pool);
        long binding = p.binding();

        pool.scanNow();
        assertThat(pool.leaksReported.get()).isEqualTo(1);
        now += 4 * PERIOD;
        pool.scanNow();
        pool.scanNow();

        assertThat(pool.leaksReported.get()).as("once per binding").isEqualTo(1);
        assertThat(pool.reclaimed.get()).isZero();
        assertThat(p.binding()).as("still the handle's").isEqualTo(binding);
        h.commit(); // the Connection may have been handed to another thread: this one goes on with it
        assertThat(db.connection(1).sql()).containsExactly(INSERT, "COMMIT");
    }

    @Test
    void withReclaimOnOwnerExitTheHandleIsReclaimedAFullPeriodAfterItsOwnerWasSeenEnded() throws Exception {
        ConfigBuilder b = new ConfigBuilder(db.url());
        b.reclaimOnOwnerExit = true;
        JdbcPool pool = start(b);
        Connection h = onAnEndedThread(() -> {
            Connection c = Handles.open(pool);
            c.setAutoCommit(false);
            Statement left = c.createStatement(); // left open by the ended thread
            left.execute(INSERT);
            return c;
        });
        PhysicalConnection p = only(pool);
        StubConnection stub = db.connection(1);
        assertThat(stub.openStatements()).as("premise").isEqualTo(1);

        pool.scanNow(); // sees the owner ended
        assertThat(pool.leaksReported.get()).as("no warning: it is reclaimed instead").isZero();
        now += PERIOD / 2;
        pool.scanNow();
        assertThat(pool.reclaimed.get()).as("not within the period").isZero();
        assertThat(p.binding()).isNotZero();

        now += PERIOD / 2;
        pool.scanNow();

        assertThat(pool.reclaimed.get()).isEqualTo(1);
        assertThat(p.binding()).isZero();
        assertThat(stub.sql()).containsExactly(INSERT, "ROLLBACK");
        assertThat(stub.openStatements()).as("its open statement closed").isZero();
        assertThat(pool.handles.open(List.of(pool))).isZero();
        assertThatThrownBy(h::createStatement).isInstanceOf(SQLException.class).hasMessageContaining("reclaimed");
    }

    @Test
    void aHandleAnotherThreadUsedAfterItsOwnerEndedIsNotReclaimed() throws Exception {
        ConfigBuilder b = new ConfigBuilder(db.url());
        b.reclaimOnOwnerExit = true;
        JdbcPool pool = start(b);
        Connection h = onAnEndedThread(() -> inTransaction(pool));
        PhysicalConnection p = only(pool);
        long binding = p.binding();
        pool.scanNow(); // sees the owner ended

        assertThat(h.getAutoCommit()).isFalse(); // this thread uses it: it is its owner now, and alive
        now += 2 * PERIOD;
        pool.scanNow();
        pool.scanNow();

        assertThat(pool.reclaimed.get()).isZero();
        assertThat(p.binding()).isEqualTo(binding);
        assertThat(db.connection(1).sql()).containsExactly(INSERT);
        h.rollback();
        assertThat(db.connection(1).sql()).containsExactly(INSERT, "ROLLBACK");
    }

    @Test
    void aBindingHeldLongerThanTheLeakThresholdIsReportedOnceAndKept() throws Exception {
        ConfigBuilder b = new ConfigBuilder(db.url());
        b.limits = ConfigBuilder.limits(0, 4).withLeakDetectionThreshold(Duration.ofSeconds(10));
        JdbcPool pool = start(b);
        Connection h = inTransaction(pool);
        PhysicalConnection p = only(pool);

        now += Duration.ofSeconds(10).toNanos();
        pool.scanNow();
        assertThat(pool.leaksReported.get()).as("held for the threshold, not longer").isZero();

        now += 1;
        pool.scanNow();
        assertThat(pool.leaksReported.get()).isEqualTo(1);

        now += Duration.ofMinutes(1).toNanos();
        pool.scanNow();
        assertThat(pool.leaksReported.get()).as("once per binding").isEqualTo(1);
        assertThat(pool.reclaimed.get()).as("a warning only").isZero();
        assertThat(p.binding()).isNotZero();
        h.close();
    }

    @Test
    void withoutALeakThresholdALongBindingOfALiveOwnerIsNeitherReportedNorReclaimed() throws Exception {
        ConfigBuilder b = new ConfigBuilder(db.url());
        b.reclaimOnOwnerExit = true;
        JdbcPool pool = start(b);
        Connection h = inTransaction(pool);
        PhysicalConnection p = only(pool);
        long binding = p.binding();

        for (int i = 0; i < 4; i++) {
            now += Duration.ofHours(1).toNanos();
            pool.scanNow();
        }

        assertThat(pool.leaksReported.get()).isZero();
        assertThat(pool.reclaimed.get()).isZero();
        assertThat(p.binding()).isEqualTo(binding);
        h.commit();
        assertThat(db.connection(1).sql()).containsExactly(INSERT, "COMMIT");
    }
}
