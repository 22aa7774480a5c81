package dev.loompool.jdbc.internal.lifecycle;

import dev.loompool.jdbc.internal.handle.Handles;
import dev.loompool.jdbc.internal.physical.BindingHolder;
import dev.loompool.jdbc.internal.physical.JdbcPool;
import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import dev.loompool.jdbc.internal.physical.ReadOnlyPool;
import dev.loompool.jdbc.internal.driver.JdbcUrls;
import dev.loompool.jdbc.internal.driver.Secrets;
import dev.loompool.jdbc.internal.sql.SqlDialect;
import dev.loompool.jdbc.internal.sql.SqlMask;
import dev.loompool.Pool;
import dev.loompool.PoolClock;
import dev.loompool.PoolListener;
import dev.loompool.PoolStats;
import dev.loompool.jdbc.HandleInfo;
import dev.loompool.jdbc.PinReason;
import dev.loompool.jdbc.ReleaseMode;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.Properties;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;

/**
 * The one door from the public API into the JDBC engine: a started data source holds one of these
 * and asks it for handles, counts and views, and changes its {@link PoolConfig.Limits} through
 * {@link #change}. It is made from the frozen {@link PoolConfig}, never from the JavaBean.
 * Everything behind it stays package-private; this package is exported nowhere (module-info.java).
 */
public final class StartedPool {

    private final JdbcPool pool;
    private final PoolConfig config;
    /** The limits in force: the config's, then each {@link #change}'s. Written under {@link #changeLock}. */
    private volatile PoolConfig.Limits limits;
    private final ReentrantLock changeLock = new ReentrantLock();

    private StartedPool(JdbcPool pool, PoolConfig config) {
        this.pool = pool;
        this.config = config;
        this.limits = config.limits();
    }

    /**
     * Checks what {@code config} could not check alone (the URL, the driver, the server pooler),
     * finds the driver and opens {@code minSize} connections; fails with every configured password
     * masked out of the message. {@code closing} tells a start that retries that the data source
     * was closed meanwhile.
     */
    public static StartedPool start(PoolConfig config, PoolClock clock, List<PoolListener> listeners,
            IntFunction<List<PoolListener>> replicaListeners, BooleanSupplier closing)
            throws SQLException {
        return new StartedPool(Startup.start(config, clock, listeners, replicaListeners, closing), config);
    }

    /** The JDBC isolation level a name such as {@code READ_COMMITTED} stands for; refuses others, naming them. */
    public static int isolationLevel(String name) {
        return Startup.isolation(name);
    }

    /**
     * {@code url} (the primary's or a replica's) redacted, with every password a pool of these
     * settings knows masked: the primary's and the replicas' URLs', the password-like properties'
     * and {@code password}'s (each may be null).
     */
    public static String maskedUrl(String url, String primaryUrl, List<String> replicas, Properties properties,
            String password) {
        return Secrets.of(primaryUrl, properties, password, replicas).mask(JdbcUrls.redact(url));
    }

    /**
     * {@code sql} (a connectionInitSql) with its literals hidden, as a pinning statement is shown,
     * its lines joined, read by the rules of {@code url}'s subprotocol; null for null.
     */
    public static String maskedSql(String sql, String url) {
        if (sql == null) {
            return null;
        }
        String[] parts = url == null ? new String[0] : url.split(":", 3);
        return SqlMask.firstLine(sql.replace('\r', ' ').replace('\n', ' '), SqlDialect.of(parts.length > 1 ? parts[1] : null));
    }

    /** The settings the pool started with; {@link #limits()} has the limits in force now. */
    public PoolConfig config() {
        return config;
    }

    /** The limits in force now. */
    public PoolConfig.Limits limits() {
        return limits;
    }

    /**
     * The one way settings change while the pool runs: the sizes and the timeouts of {@code next},
     * validated as a whole when it was made (minSize <= maxSize, no negative duration), are applied
     * to the primary's pool, and to each replica's where replicaMinSize/replicaMaxSize do not fix
     * them. A lower maxSize closes surplus idle connections at once and retires lent ones as they
     * come back; a higher one serves waiters at once; maxLifetime applies to connections opened
     * from now on. Changes are applied one at a time.
     *
     * @throws IllegalArgumentException if the replicas' sizes would be out of order; nothing is applied then
     * @throws IllegalStateException once the pool is closed
     */
    public void change(PoolConfig.Limits next) {
        changeLock.lock();
        try {
            if (pool.isClosed()) {
                throw new IllegalStateException("pool '" + pool.name + "' is closed: its settings no longer change");
            }
            int replicaMin = config.replicaMinSize(next);
            int replicaMax = config.replicaMaxSize(next);
            if (!config.replicas().isEmpty() && replicaMin > replicaMax) {
                throw new IllegalArgumentException("replicaMinSize must be <= replicaMaxSize, was replicaMinSize="
                        + replicaMin + ", replicaMaxSize=" + replicaMax + " (maxSize unless set)");
            }
            for (JdbcPool each : pools()) {
                boolean primary = each == pool;
                each.change(primary ? next.minSize() : replicaMin, primary ? next.maxSize() : replicaMax,
                        next.acquireTimeout(), next.leakDetectionThreshold(), next.validationTimeout(),
                        next.idleTimeout(), next.maxLifetime());
            }
            limits = next;
        } finally {
            changeLock.unlock();
        }
    }

    /** A new handle; in {@link ReleaseMode#CLOSE} it binds at once, as a classic pool's connection. */
    public Connection openHandle() throws SQLException {
        return Handles.open(pool);
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
        if (pool.replicas() == null) {
            return List.of(pool);
        }
        List<JdbcPool> all = new ArrayList<>(pool.replicas().pools().size() + 1);
        all.add(pool);
        all.addAll(pool.replicas().pools());
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
        return (int) pool.handles.open(pools());
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

    /** The handles that hold a physical connection now, and why (masked SQL only: {@link Handles#report}). */
    public List<HandleInfo> boundHandles() {
        List<HandleInfo> handles = new ArrayList<>();
        long now = pool.clock.nanoTime();
        forEachBound((h, c) -> handles.add(Handles.report(h, c, now)));
        return handles;
    }

    /**
     * Adds to {@code counts} each bound connection under every reason that pins it: the reasons only,
     * for the per-reason gauges a scrape reads, without the masking and stack walks of {@link #boundHandles}.
     */
    public void countPinned(Map<PinReason, Integer> counts) {
        forEachBound((h, c) -> Handles.pinReasons(h).forEach(r -> counts.merge(r, 1, Integer::sum)));
    }

    private void forEachBound(BiConsumer<BindingHolder, PhysicalConnection> action) {
        for (JdbcPool each : pools()) {
            for (PhysicalConnection c : each.connections) {
                if (c.binding() == 0) {
                    continue; // idle: its holder is only the note of the last one
                }
                BindingHolder h = c.holder();
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
