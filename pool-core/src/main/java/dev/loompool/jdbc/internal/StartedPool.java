package dev.loompool.jdbc.internal;

import dev.loompool.jdbc.internal.physical.JdbcPool;
import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import dev.loompool.jdbc.internal.physical.ReadOnlyPool;
import dev.loompool.jdbc.internal.driver.JdbcUrls;
import dev.loompool.jdbc.internal.driver.Secrets;
import dev.loompool.Pool;
import dev.loompool.PoolClock;
import dev.loompool.PoolListener;
import dev.loompool.PoolStats;
import dev.loompool.jdbc.HandleInfo;
import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.PinReason;
import dev.loompool.jdbc.ReleaseMode;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.IntFunction;

/**
 * The one door from the public API into the JDBC engine: a started {@link LoomPoolDataSource}
 * holds one of these and asks it for handles, counts and views. Everything behind it stays
 * package-private; this package is exported nowhere (module-info.java).
 */
public final class StartedPool {

    private final JdbcPool pool;

    private StartedPool(JdbcPool pool) {
        this.pool = pool;
    }

    /**
     * Checks every setting of {@code ds}, finds the driver and opens {@code minSize} connections;
     * fails with every configured password masked out of the message.
     */
    public static StartedPool start(LoomPoolDataSource ds, PoolClock clock, List<PoolListener> listeners,
            IntFunction<List<PoolListener>> replicaListeners) throws SQLException {
        return new StartedPool(Startup.start(ds, clock, listeners, replicaListeners));
    }

    /** The JDBC isolation level a name such as {@code READ_COMMITTED} stands for; refuses others, naming them. */
    public static int isolationLevel(String name) {
        return Startup.isolation(name);
    }

    /** The URL of {@code ds} with every configured password masked: what logs and endpoints show. */
    public static String maskedUrl(LoomPoolDataSource ds) {
        return maskedUrl(ds, ds.getJdbcUrl());
    }

    /** {@code url} (the primary's or a replica's) with every password {@code ds} knows masked. */
    public static String maskedUrl(LoomPoolDataSource ds, String url) {
        return Secrets.of(ds).mask(JdbcUrls.redact(url));
    }

    /** A new handle; in {@link ReleaseMode#CLOSE} it binds at once, as a classic pool's connection. */
    public Connection openHandle() throws SQLException {
        LogicalConnection handle = new DelegatingConnection(pool); // counted from its first use
        if (pool.releaseMode == ReleaseMode.CLOSE) {
            try {
                handle.bind();
            } catch (SQLException e) {
                handle.close();
                throw e;
            }
        }
        return handle;
    }

    /** A view of the generic pool that cannot acquire: its stats and its breaker. */
    public Pool<?> readOnlyView() {
        return new ReadOnlyPool(pool.pool);
    }

    /** Views of the replicas' pools, as {@link #readOnlyView()}; empty without replicas. */
    public List<Pool<?>> replicaViews() {
        List<Pool<?>> views = new ArrayList<>();
        for (JdbcPool replica : pools()) {
            if (replica != pool) {
                views.add(new ReadOnlyPool(replica.pool));
            }
        }
        return views;
    }

    /** The primary's pool, then the replicas'. */
    private List<JdbcPool> pools() {
        if (pool.replicas == null) {
            return List.of(pool);
        }
        List<JdbcPool> all = new ArrayList<>(pool.replicas.pools().size() + 1);
        all.add(pool);
        all.addAll(pool.replicas.pools());
        return all;
    }

    public PoolStats stats() {
        return pool.pool.stats();
    }

    /** The last failed connect's masked message while the pool has never connected; else null. */
    public String initialConnectError() {
        return pool.initialConnectError();
    }

    public int openHandles() {
        return (int) pool.openHandles.sum();
    }

    /** How long each pin reason held a connection, primary and replicas together. */
    public Map<PinReason, dev.loompool.jdbc.PinTime> pinTimes() {
        return pool.pinTimes.snapshot(pools());
    }

    public long reclaimed() {
        return pool.reclaimed.get();
    }

    public long leaksReported() {
        return pool.leaksReported.get();
    }

    /** One reclaimer scan now, as the periodic one would (for tests). */
    public void scanNow() {
        pool.scanNow();
    }

    /** The handles that hold a physical connection now, and why (masked SQL only: {@link PinReport}). */
    public List<HandleInfo> boundHandles() {
        List<HandleInfo> handles = new ArrayList<>();
        long now = pool.clock.nanoTime();
        forEachBound((h, c) -> handles.add(PinReport.of(h, c, now)));
        return handles;
    }

    /**
     * Adds to {@code counts} each bound connection under every reason that pins it: the reasons only,
     * for the per-reason gauges a scrape reads, without the masking and stack walks of {@link #boundHandles}.
     */
    public void countPinned(Map<PinReason, Integer> counts) {
        forEachBound((h, c) -> h.pinReasons().forEach(r -> counts.merge(r, 1, Integer::sum)));
    }

    private void forEachBound(BiConsumer<LogicalConnection, PhysicalConnection> action) {
        for (JdbcPool each : pools()) {
            for (PhysicalConnection c : each.connections) {
                if (c.binding() == 0) {
                    continue; // idle: its holder is only the note of the last one
                }
                LogicalConnection h = (LogicalConnection) c.holder();
                if (h != null) {
                    action.accept(h, c);
                }
            }
        }
    }

    public int evictIdle() {
        int evicted = 0;
        for (JdbcPool each : pools()) {
            evicted += each.evictIdle();
        }
        return evicted;
    }

    /** What a caller of a closed data source gets: SQLState 08003, naming the pool. */
    public SQLException closedException() {
        return pool.closed(null);
    }

    public void close() {
        pool.close();
    }
}
