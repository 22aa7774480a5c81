package dev.loompool.jdbc.internal.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.PoolClock;
import dev.loompool.PoolStats;
import dev.loompool.stub.StubDatabase;
import dev.loompool.stub.StubDriver;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The one named operation through which a running pool's settings change ({@link StartedPool#change},
 * DESIGN.md §4, "Start"): the limits in force become the new record, validated as a whole, while
 * the record the pool started with stays as it was; a change the replicas' sizes cannot take is
 * refused before anything is applied, and a closed pool takes none.
 */
class RunTimeChangeTest {

    private static final AtomicInteger DATABASE_NUMBER = new AtomicInteger();

    private final String name = "change" + DATABASE_NUMBER.incrementAndGet();
    private final StubDatabase db = StubDriver.database(name);
    private final StubDatabase replicaDb = StubDriver.database(name + "-replica");
    private final PoolClock clock = () -> 1_000_000_000_000L;
    private final List<StartedPool> started = new ArrayList<>();

    private StartedPool start(ConfigBuilder b) throws SQLException {
        StartedPool p = StartedPool.start(b.build(), clock, List.of(), i -> List.of(), () -> false);
        started.add(p);
        return p;
    }

    @AfterEach
    void closePools() {
        started.forEach(StartedPool::close);
    }

    @Test
    void aChangeBecomesTheLimitsInForceWhileTheStartRecordStaysAsItWas() throws SQLException {
        StartedPool pool = start(new ConfigBuilder(db.url()));
        PoolConfig.Limits atStart = pool.config().limits();
        PoolConfig.Limits next = atStart.withSizes(0, 7).withAcquireTimeout(Duration.ofSeconds(1));

        pool.change(next);

        assertThat(pool.limits()).isEqualTo(next);
        assertThat(pool.config().limits()).as("the frozen record").isEqualTo(atStart).isEqualTo(ConfigBuilder.limits(0, 4));
        assertThat(pool.readOnlyView().stats().maxSize()).as("applied to the running pool").isEqualTo(7);
    }

    @Test
    void theReplicasThatFollowThePrimaryTakeItsNewSizesAndThoseWithTheirOwnKeepThem() throws SQLException {
        ConfigBuilder following = new ConfigBuilder(db.url());
        following.replicas = List.of(replicaDb.url());
        StartedPool pool = start(following);

        pool.change(pool.limits().withSizes(0, 6));

        assertThat(pool.replicaViews()).singleElement().extracting(r -> r.stats().maxSize()).isEqualTo(6);
    }

    @Test
    void aChangeThatPutsTheReplicasMinSizeAboveTheirMaxSizeIsRefusedAndNothingIsApplied() throws SQLException {
        ConfigBuilder b = new ConfigBuilder(db.url());
        b.replicas = List.of(replicaDb.url());
        b.replicaMinSize = 2; // replicaMaxSize unset: it follows the primary's maxSize
        StartedPool pool = start(b);
        PoolConfig.Limits before = pool.limits();

        assertThatThrownBy(() -> pool.change(before.withSizes(0, 1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("replicaMinSize must be <= replicaMaxSize, was replicaMinSize=2, replicaMaxSize=1 "
                        + "(maxSize unless set)");

        assertThat(pool.limits()).isEqualTo(before);
        assertThat(pool.readOnlyView().stats().maxSize()).as("the primary untouched").isEqualTo(4);
        assertThat(pool.replicaViews()).singleElement().extracting(r -> r.stats().maxSize()).isEqualTo(4);
    }

    @Test
    void aClosedPoolTakesNoChange() throws SQLException {
        StartedPool pool = start(new ConfigBuilder(db.url()));
        PoolConfig.Limits before = pool.limits();
        pool.close();

        assertThatThrownBy(() -> pool.change(before.withSizes(0, 2))).isInstanceOf(IllegalStateException.class)
                .hasMessage("pool 'lifecycle' is closed: its settings no longer change");
        assertThat(pool.limits()).isEqualTo(before);
    }

    @Test
    void theStartedPoolReadsItsSizesFromTheRecord() throws SQLException {
        ConfigBuilder b = new ConfigBuilder(db.url());
        b.limits = ConfigBuilder.limits(1, 3);
        StartedPool pool = start(b);

        PoolStats stats = pool.readOnlyView().stats();

        assertThat(stats.minSize()).isEqualTo(1);
        assertThat(stats.maxSize()).isEqualTo(3);
        assertThat(db.connects()).as("minSize pre-warmed at start").isEqualTo(1);
    }
}
