package dev.loompool.jdbc;

import dev.loompool.Pool;
import dev.loompool.PoolClock;
import dev.loompool.PoolListener;
import dev.loompool.jdbc.internal.lifecycle.PoolConfig;
import dev.loompool.jdbc.internal.lifecycle.StartedPool;
import java.io.Closeable;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The loompool {@link DataSource}: a template configured through JavaBean setters (so Spring's
 * {@code DataSourceBuilder} and {@code @ConfigurationProperties} bind to it), started by the first
 * {@link #getConnection()} or by {@link #start()}, after which its configuration is frozen.
 *
 * <p>Each {@link #getConnection()} returns a new logical connection that holds a physical one only
 * while it needs it: see {@link LoomConnection} and {@link PinReason}.
 */
public class LoomPoolDataSource extends DataSourceSettings implements DataSource, Closeable {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(LoomPoolDataSource.class);

    private final ReentrantLock startLock = new ReentrantLock();
    private volatile StartedPool running;
    /** Set by close() before it takes startLock: a start that retries sees it and gives up. */
    private volatile boolean closed;
    /** Whether close() did its work (under startLock): closed alone is set before the lock. */
    private boolean closeDone;
    /** The thread running a start, for close() to wake from its wait between retries. */
    private volatile Thread starting;
    /** The registered MXBean while registerMbeans is set and the pool runs; guarded by startLock. */
    private PoolMBean mbean;
    private PrintWriter logWriter;
    private int loginTimeout;
    /** The clock, listeners and bind observer: set before start, not bean properties a binder sets. */
    private final PoolHooks hooks = new PoolHooks();

    public LoomPoolDataSource() {
    }

    /** Alias of {@link #setJdbcUrl}, the name Spring's {@code DataSourceBuilder} uses. */
    public void setUrl(String url) {
        setJdbcUrl(url);
    }

    public String getUrl() {
        return getJdbcUrl();
    }

    /** Told whenever a handle binds a physical connection; see {@link BindObserver}. */
    public void setBindObserver(BindObserver bindObserver) {
        hooks.bindObserver = check.beforeStart(bindObserver);
    }

    public BindObserver getBindObserver() {
        return hooks.bindObserver;
    }

    /** Adds a listener to the underlying pool's events (for metrics). */
    public void addPoolListener(PoolListener listener) {
        hooks.primaryListeners.add(check.beforeStart(listener));
    }

    /**
     * Adds a listener to each replica's pool (for its metrics): {@code forReplica} is asked at
     * start, once per replica, with that pool's name ({@code <poolName>-replica-N}).
     */
    public void addReplicaPoolListeners(Function<String, PoolListener> forReplica) {
        hooks.replicaListeners.add(check.beforeStart(forReplica));
    }

    /** For tests: the clock that times idle, lifetime, leaks and the breaker. */
    final void setClock(PoolClock clock) {
        hooks.clock = check.beforeStart(clock);
    }

    /**
     * Starts the pool if it is not started: validates the settings and opens {@code minSize}
     * connections. The first connection the pool makes (here, or for the first
     * {@link #getConnection()}) reads the database's catalog of functions and views before it is
     * handed out, in the round trip that reads its session's settings where the driver allows.
     */
    public void start() throws SQLException {
        pool();
    }

    /** The running pool, started now if it is not. */
    private StartedPool pool() throws SQLException {
        StartedPool p = running;
        if (p != null) {
            return p;
        }
        startLock.lock();
        try {
            if (closed) {
                throw new SQLException("LoomPoolDataSource '" + getPoolName() + "' is closed", "08003");
            }
            if (running == null) {
                check.startReading(); // a setter from now on would reach no pool: refused until the start ends
                try {
                    return startOnce();
                } finally {
                    check.startEnded();
                }
            }
            return running;
        } finally {
            startLock.unlock();
        }
    }

    /** The start itself, under the start lock, on settings no setter changes meanwhile. */
    private StartedPool startOnce() throws SQLException {
        // Read once: the engine works from this record, never from this bean (STYLE.md).
        PoolConfig config = frozen(hooks.bindObserver);
        // Registered first, so that a start that fails takes it away again with what it opened.
        mbean = isRegisterMbeans() ? PoolMBean.register(this) : null;
        StartedPool started;
        starting = Thread.currentThread();
        try {
            started = StartedPool.start(config, hooks.clock, hooks.primaryListeners,
                    i -> hooks.replicaListeners(config.poolName(), i), this::isClosed);
        } catch (SQLException | RuntimeException | Error e) {
            unregisterMBean();
            throw e;
        } finally {
            starting = null;
        }
        if (closed) { // closed while the last connect went through: nobody may get this pool
            started.close();
            unregisterMBean();
            throw new SQLException("LoomPoolDataSource '" + getPoolName() + "' was closed while starting",
                    "08003");
        }
        freeze(started); // before the pool is published: nobody sees it running while settings still change
        running = started;
        log.info("loompool '{}' started: {}, min-size {}, max-size {}, release mode {}{}{}", getPoolName(),
                getMaskedJdbcUrl(), getMinSize(), getMaxSize(), getReleaseMode(),
                getServerPooler() == ServerPooler.NONE ? "" : ", server pooler " + getServerPooler(),
                getReplicas().isEmpty() ? "" : ", replicas " + getMaskedReplicaUrls());
        return started;
    }

    @Override
    public Connection getConnection() throws SQLException {
        StartedPool p = running;
        if (p == null) {
            p = pool();
        }
        if (closed) {
            throw p.closedException();
        }
        return p.openHandle(); // counted from its first use, see getOpenHandles
    }

    /** Not supported: a pool has one set of credentials. Rotate them with {@link #setCredentialsSupplier}. */
    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("loompool pools connections of one user; "
                + "configure username/password or a credentials supplier instead");
    }

    /**
     * A read-only view of the underlying pool: its stats and its circuit breaker. Acquiring from it
     * throws {@link dev.loompool.PoolException}; close the data source instead of the view.
     *
     * @throws IllegalStateException before the pool is started
     */
    public Pool<?> getPool() {
        StartedPool p = running;
        if (p == null) {
            throw new IllegalStateException("LoomPoolDataSource '" + getPoolName() + "' is not started");
        }
        return p.readOnlyView();
    }

    /**
     * Read-only views of the replicas' pools ({@code <poolName>-replica-1}, …, in the order of
     * {@link #setReplicas}): their stats and circuit breakers. Empty without replicas.
     *
     * @throws IllegalStateException before the pool is started
     */
    public List<Pool<?>> getReplicaPools() {
        StartedPool p = running;
        if (p == null) {
            throw new IllegalStateException("LoomPoolDataSource '" + getPoolName() + "' is not started");
        }
        return p.replicaViews();
    }

    /**
     * Why the pool has no connection yet: the message (passwords masked) of the last failed connect,
     * as long as the pool has not opened one since it started, which only a start with a negative
     * {@link #setInitializationFailTimeout initializationFailTimeout}, or with minSize 0, allows;
     * null once a connection was opened, and before the start. The health indicator is DOWN meanwhile.
     */
    public String getInitialConnectError() {
        StartedPool p = running;
        return p == null ? null : p.initialConnectError();
    }

    /** Whether the pool is started and not closed. */
    public boolean isRunning() {
        return running != null && !closed;
    }

    /**
     * Logical connections open that have used a physical connection: a handle counts from its first
     * use (in {@link ReleaseMode#CLOSE}, from {@code getConnection()}) until it is closed or
     * reclaimed, or the garbage collector finds it dropped without close, bound or not. A handle
     * dropped before its first use held nothing and is never counted, so the count does not drift.
     * A dropped handle counts until the collector finds it and a housekeeping scan notices, within
     * a few periods of 500 ms after that.
     */
    public int getOpenHandles() {
        StartedPool p = running;
        return p == null ? 0 : p.openHandles();
    }

    /** Physical connections lent out now, counted under each reason that pins them. */
    public Map<PinReason, Integer> getPinnedConnections() {
        Map<PinReason, Integer> counts = new EnumMap<>(PinReason.class);
        for (PinReason r : PinReason.values()) {
            counts.put(r, 0);
        }
        StartedPool p = running;
        if (p != null) {
            p.countPinned(counts);
        }
        return counts;
    }

    /**
     * How long physical connections stayed bound under each reason since the pool started: count,
     * total and longest, per {@link PinReason} (see {@link PinTime}); all zero before the start.
     */
    public Map<PinReason, PinTime> getPinTimes() {
        StartedPool p = running;
        if (p != null) {
            return p.pinTimes();
        }
        Map<PinReason, PinTime> none = new EnumMap<>(PinReason.class);
        for (PinReason r : PinReason.values()) {
            none.put(r, new PinTime(0, java.time.Duration.ZERO, java.time.Duration.ZERO));
        }
        return none;
    }

    /**
     * Connections taken back from handles that were dropped without close, or (with
     * reclaimOnOwnerExit) whose last user's thread ended.
     */
    public long getReclaimedConnections() {
        StartedPool p = running;
        return p == null ? 0 : p.reclaimed();
    }

    /** Runs one reclaimer scan now, as its own periodic one would (for tests). */
    void scanNow() {
        StartedPool p = running;
        if (p != null) {
            p.scanNow();
        }
    }

    /** Leak warnings logged so far (for tests). */
    long leaksReported() {
        StartedPool p = running;
        return p == null ? 0 : p.leaksReported();
    }

    /** The handles that hold a physical connection now. */
    public List<HandleInfo> getBoundHandles() {
        StartedPool p = running;
        return p == null ? new ArrayList<>() : p.boundHandles();
    }

    /**
     * Closes the idle connections now; the pool opens fresh ones up to minSize.
     *
     * @return how many were closed
     */
    public int evictIdle() {
        StartedPool p = running;
        return p == null ? 0 : p.evictIdle();
    }

    /** Closes the pool: idle connections now, lent ones as they come back. Idempotent. */
    @Override
    public void close() {
        // Marked and woken before the lock: a start that retries (initializationFailTimeout) holds
        // it and gives up when it sees the mark, so this waits out one connect, not the timeout.
        closed = true;
        Thread start = starting;
        if (start != null) {
            LockSupport.unpark(start);
        }
        startLock.lock();
        try {
            if (closeDone) {
                return;
            }
            closeDone = true;
            freeze(null);
            unregisterMBean();
        } finally {
            startLock.unlock();
        }
        StartedPool p = running;
        if (p != null) {
            p.close();
            log.info("loompool '{}' closed", getPoolName());
        }
    }

    /** Under startLock. */
    private void unregisterMBean() {
        if (mbean != null) {
            mbean.unregister();
            mbean = null;
        }
    }

    public boolean isClosed() {
        return closed;
    }

    @Override
    public PrintWriter getLogWriter() {
        return logWriter;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        this.logWriter = out;
    }

    @Override
    public void setLoginTimeout(int seconds) {
        this.loginTimeout = seconds;
    }

    @Override
    public int getLoginTimeout() {
        return loginTimeout;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("loompool logs through SLF4J");
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        throw new SQLException("LoomPoolDataSource is not a wrapper for " + iface.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }

    /** The JDBC URL with any password in it masked: what to show in logs, messages and endpoints. */
    public String getMaskedJdbcUrl() {
        return masked(getJdbcUrl());
    }

    /**
     * {@code connectionInitSql} with its literals hidden, as the pinning statement is shown
     * ({@code SET app.api_key = '…'} shows as {@code SET app.api_key = ?}), its lines joined: what
     * to show in endpoints. The dialect is the URL's subprotocol's; null if no SQL is set.
     */
    public String getMaskedConnectionInitSql() {
        return StartedPool.maskedSql(getConnectionInitSql(), getJdbcUrl());
    }

    /** The replicas' URLs, masked as {@link #getMaskedJdbcUrl()}. */
    public List<String> getMaskedReplicaUrls() {
        return getReplicas().stream().map(this::masked).toList();
    }

    private String masked(String url) {
        return StartedPool.maskedUrl(url, getJdbcUrl(), getReplicas(), getDataSourceProperties(),
                getCredentialsSupplier() == null ? getPassword() : null);
    }

    /** The configured properties, credentials supplier and settings, without the password. */
    @Override
    public String toString() {
        return "LoomPoolDataSource[" + getPoolName() + ", " + getMaskedJdbcUrl()
                + (running == null ? ", not started" : closed ? ", closed" : ", " + running.stats()) + "]";
    }
}
