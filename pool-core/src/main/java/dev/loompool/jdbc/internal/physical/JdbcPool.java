package dev.loompool.jdbc.internal.physical;

import dev.loompool.jdbc.internal.sql.SqlClassifier;
import dev.loompool.AcquireTimeoutException;
import dev.loompool.CircuitBreakerState;
import dev.loompool.CircuitBreakerStrategy;
import dev.loompool.DestroyReason;
import dev.loompool.Lease;
import dev.loompool.Pool;
import dev.loompool.PoolClock;
import dev.loompool.PoolClosedException;
import dev.loompool.PoolException;
import dev.loompool.PoolListener;
import dev.loompool.ResourceDestructor;
import dev.loompool.ServiceUnavailableException;
import dev.loompool.engine.CreateTimedOut;
import dev.loompool.engine.DirectPool;
import dev.loompool.engine.Entry;
import dev.loompool.jdbc.BindObserver;
import dev.loompool.jdbc.ReleaseMode;
import java.lang.ref.Reference;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A started data source's pool (the primary's, or a replica's): the generic pool of {@link PhysicalConnection}s with the
 * JDBC callbacks (connect, validate, reset, destroy) and the error mapping of DESIGN.md §4. The
 * checks of an idle connection, and the read of the function table, are {@link IdleChecks}.
 */
public final class JdbcPool {

    private static final Logger log = LoggerFactory.getLogger(JdbcPool.class);

    public final String name;
    public final ReleaseMode releaseMode;
    public final BindObserver bindObserver;
    public final PoolClock clock;
    /** leakDetectionThreshold in nanoseconds, 0 off; changes at run time ({@link #change}). */
    private volatile long leakThresholdNanos;
    /** pinWarningThreshold: a handle pinned by session state or explicitly for longer is logged once; 0 off. */
    public final long pinWarnNanos;
    public final ConnectionFactory factory;
    /** Reads SQL by the rules of this pool's database. */
    public final SqlClassifier classifier;
    /** Lent without a Lease object per acquire: a connection's binding number does the lease's work (P6). */
    public final DirectPool<PhysicalConnection> pool;
    /** Every physical connection alive: what the reclaimer scans, a registration per connect, not per handle. */
    public final Set<PhysicalConnection> connections = ConcurrentHashMap.newKeySet();
    // The handles' counts: a replica's pool shares its primary's, since a handle binds to either.
    /** Handles that have used a connection and have not ended: what the data source's getOpenHandles() counts. */
    public final HandleCount handles;
    /** How long each pin reason held a connection; shared with the replicas. */
    public final PinTimes pinTimes;
    /**
     * Watches set since the housekeeper's last scan, which takes them in (one per handle, set
     * rarely): the handles' weak references to themselves, which the room above makes and reads.
     */
    public final ConcurrentLinkedQueue<Reference<? extends BindingHolder>> watches;
    public final boolean reclaimOnOwnerExit;
    public final AtomicLong reclaimed;
    public final AtomicLong leaksReported;
    /** Behind a pooler in transaction mode: session state is refused, and never reset (TransactionPooling). */
    public final boolean transactionPooler;
    /** The handles' readOnly unless they set it: true routes them to the replicas. */
    public final boolean readOnlyByDefault;
    /** The read replicas' pools, on the primary's; null without replicas, and on a replica's own. */
    private Replicas replicas;
    // The limits that change at run time (change): each read on its own, so a reader may see one
    // change's value beside the previous one's of another setting, never a value out of its range.
    private volatile int validationSeconds;
    private volatile long acquireTimeoutNanos;
    private volatile long idleTimeoutNanos;
    private volatile int minSize;
    private volatile String acquireTimeoutText;
    /** Its DEBUG lines: a connection added, retired, reset. */
    final LifecycleLog lifecycle;
    /** The factory the generic pool calls: the connect, counted, and the start's policy. */
    final Connector connector;
    /** The room above's watch over this pool's connections and their holders (the reclaimer). */
    public final Watcher watcher;
    /** {@link #close()} began: a handle that lost its connection to it says "closed", not "reclaimed". */
    private volatile boolean closed;
    /**
     * When a connection was last found broken: an idle one returned before that is not trusted on
     * its recent use, but validated when handed out (DESIGN.md §7: a restart or failover kills them
     * all, and the background check of the idle ones may not have reached it yet). Plain, read at
     * every hand-out: whoever notes it gives the connection back through the pool before the next
     * hand-out of it, and the pool's own hand-off publishes the note; a late read costs one more trust.
     */
    long suspectSince;

    /**
     * A primary's pool ({@code primary} null), or a replica's, which shares the primary's handle
     * counts; {@code watcher} makes its {@link #watcher}, started once the pool is.
     */
    public JdbcPool(JdbcPoolSettings s, ConnectionFactory factory, PoolClock clock, List<PoolListener> listeners,
            JdbcPool primary, Function<JdbcPool, Watcher> watcher) throws SQLException {
        this.name = s.name();
        this.lifecycle = new LifecycleLog(name);
        this.handles = primary == null ? new HandleCount() : primary.handles;
        this.pinTimes = primary == null ? new PinTimes() : primary.pinTimes;
        this.watches = primary == null ? new ConcurrentLinkedQueue<>() : primary.watches;
        this.reclaimed = primary == null ? new AtomicLong() : primary.reclaimed;
        this.leaksReported = primary == null ? new AtomicLong() : primary.leaksReported;
        this.transactionPooler = s.transactionPooler();
        this.readOnlyByDefault = s.readOnlyByDefault();
        this.releaseMode = s.releaseMode();
        this.bindObserver = s.bindObserver();
        this.clock = clock;
        this.factory = factory;
        this.classifier = factory.classifier();
        this.pinWarnNanos = nanos(s.pinWarningThreshold());
        this.reclaimOnOwnerExit = s.reclaimOnOwnerExit();
        setLimits(s.minSize(), s.acquireTimeout(), s.leakDetectionThreshold(), s.validationTimeout(), s.idleTimeout());
        this.suspectSince = clock.nanoTime() - 1; // before every connection this pool makes
        this.connector = new Connector(this, s.initializationFailTimeout(), s.closing());
        var builder = Pool.builder(connector)
                .name(name)
                .minSize(s.minSize())
                .maxSize(s.maxSize())
                .acquireTimeout(s.acquireTimeout())
                .healthcheckInterval(s.healthcheckInterval())
                .clock(clock)
                .destructor(new ResourceDestructor<>() {
                    @Override
                    public void destroy(PhysicalConnection p) throws SQLException {
                        JdbcPool.this.destroy(p, null);
                    }

                    @Override
                    public void destroy(PhysicalConnection p, DestroyReason reason) throws SQLException {
                        JdbcPool.this.destroy(p, reason);
                    }
                })
                .beforeAcquire(IdleChecks.handOut(this))
                .beforeRelease(this::releaseCheck)
                .healthcheck(p -> IdleChecks.healthyWhileIdle(this, p));
        listeners.forEach(builder::listener);
        if (s.circuitBreakerFailureThreshold() > 0) {
            builder.circuitBreakerStrategy(new BreakerStrategy(CircuitBreakerStrategy.consecutiveFailures(
                    s.circuitBreakerFailureThreshold(), s.circuitBreakerOpenDuration(), clock)));
        }
        long began = clock.nanoTime();
        try {
            this.pool = (DirectPool<PhysicalConnection>) builder.build(); // every built pool is one
        } catch (PoolException e) { // its cause is what the factory threw, already masked
            throw ConnectFailures.startFailed(this, s.initializationFailTimeout(), connector.attempts.get(),
                    clock.nanoTime() - began, e.getCause());
        }
        this.watcher = watcher.apply(this);
    }

    private void setLimits(int minSize, Duration acquireTimeout, Duration leakDetectionThreshold,
            Duration validationTimeout, Duration idleTimeout) {
        this.minSize = minSize;
        this.acquireTimeoutText = acquireTimeout.toMillis() + " ms";
        this.acquireTimeoutNanos = nanos(acquireTimeout);
        this.leakThresholdNanos = nanos(leakDetectionThreshold);
        int seconds = (int) Math.max(1, validationTimeout.toSeconds());
        this.validationSeconds = seconds;
        this.idleTimeoutNanos = nanos(idleTimeout);
    }

    /**
     * Applies limits the caller validated (StartedPool.change) to the running pool: the sizes and
     * the acquire timeout to the generic pool (a lower maxSize closes surplus idle connections now
     * and retires lent ones as they come back), the timeouts to what reads them next, and
     * maxLifetime to the connections opened from now on.
     */
    public void change(int minSize, int maxSize, Duration acquireTimeout, Duration leakDetectionThreshold,
            Duration validationTimeout, Duration idleTimeout, Duration maxLifetime) {
        setLimits(minSize, acquireTimeout, leakDetectionThreshold, validationTimeout, idleTimeout);
        factory.maxLifetime(nanos(maxLifetime));
        pool.acquireTimeout(acquireTimeout);
        pool.resize(minSize, maxSize);
    }

    /**
     * {@code d} in nanoseconds; a duration past what a long holds in them (292 years), which
     * configuration may name to mean "never", saturates instead of overflowing, as the generic pool's do.
     */
    public static long nanos(Duration d) {
        return d.compareTo(NEVER) > 0 ? Long.MAX_VALUE / 4 : d.toNanos();
    }

    private static final Duration NEVER = Duration.ofDays(10_000);

    /** leakDetectionThreshold in nanoseconds; 0 when leak detection is off. */
    public long leakThresholdNanos() {
        return leakThresholdNanos;
    }

    /** validationTimeout in whole seconds, at least 1: what {@code isValid} and the resets' timeouts get. */
    public int validationSeconds() {
        return validationSeconds;
    }

    /** acquireTimeout in nanoseconds: also how long a thread waits for another thread of its handle that acquires. */
    public long acquireTimeoutNanos() {
        return acquireTimeoutNanos;
    }

    /** acquireTimeout as its messages say it ("30000 ms"). */
    public String acquireTimeoutText() {
        return acquireTimeoutText;
    }

    long idleTimeoutNanos() {
        return idleTimeoutNanos;
    }

    int minSize() {
        return minSize;
    }

    // ---- callbacks of the generic pool ---------------------------------------------------------

    PhysicalConnection connect() throws SQLException {
        ConnectEvent event = ConnectEvent.start(); // null unless a recording wants it
        PhysicalConnection p;
        long began = clock.nanoTime();
        try {
            p = factory.create();
        } catch (SQLException | RuntimeException | Error e) {
            ConnectEvent.failed(event, name, e, factory.secrets());
            throw e;
        }
        ConnectEvent.ok(event, name);
        p.joinPool(this);
        connections.add(p);
        if (lifecycle.on()) { // no counts gathered for it otherwise; pool is null during the start's pre-warm
            lifecycle.added(p, clock.nanoTime() - began, pool == null ? null : pool.stats());
        }
        return p;
    }

    /** A failure to close is logged by the generic pool: masked here, as the factory masks its own. */
    private void destroy(PhysicalConnection p, DestroyReason reason) throws SQLException {
        if (lifecycle.on()) { // no clock read for it otherwise
            lifecycle.retired(p, reason, clock.nanoTime() - p.createdAt);
        }
        connections.remove(p);
        pinTimes.fold(p);
        handles.fold(p);
        BindingHolder last = p.holder();
        if (last != null) {
            last.lastConnectionGone(); // an open handle it served last is watched from now on, or it might never be
        }
        try {
            p.raw.close();
        } catch (SQLException e) {
            throw factory.secrets().mask(e);
        }
    }

    /** {@link #reset}, which notes why it refused a connection: the words of its "retired" line. */
    private boolean releaseCheck(PhysicalConnection p) throws SQLException, Retired {
        try {
            return reset(p);
        } catch (Retired r) {
            p.noteRetirement(r.getMessage());
            throw r;
        }
    }

    /**
     * Makes a returned connection as good as new: rolls back only if a transaction may be open,
     * resets the settings that differ from the defaults (and only those), and gives a session SQL
     * changed the session of a fresh connection. A reset that fails closes the connection; it
     * counts as a breaker failure only if the error says the connection is broken.
     */
    private boolean reset(PhysicalConnection p) throws SQLException, Retired {
        if (p.pinsTimed != 0) { // before anything retires it: session state, on a database that cannot reset, ends here
            long now = clock.nanoTime();
            pinTimes.bindingEnded(p, now, clock.coarseNanoTime());
        }
        ConnectionState state = p.state();
        if (state != ConnectionState.HEALTHY && state != ConnectionState.LENDING_DRIVER_OBJECTS) {
            if (state == ConnectionState.BROKEN) {
                suspectSince = clock.nanoTime();
                throw new Retired("broken"); // see giveBack: no breaker failure by itself
            }
            throw new Retired(switch (state) {
                case EVICTED -> "evicted";
                case CLOSED_UNDER_USER -> "closed by another thread while its user's thread could still reach it";
                default -> "the application held the driver's own connection or state";
            });
        }
        ReturnUndo.onReturn(this, p);
        // The coarse clock: it lags, never leads, so the connection looks returned a little earlier
        // than it was and a hand-out validates it sooner, never later; the lifetime ends a tick late.
        long now = clock.coarseNanoTime();
        if ((p.pinsTimed | p.pinsSeen) != 0) { // the per-statement pins end on the same coarse reading
            pinTimes.bindingEnded(p, p.pinsTimed != 0 ? clock.nanoTime() : now, now);
        }
        p.forgetBindSite(); // after the pins' Flight Recorder events, which name it
        if (now - p.expiresAt >= 0) {
            throw new Retired(IdleChecks.MAX_LIFETIME);
        }
        boolean ranDdl = p.ranDdl;
        p.ranDdl = false;
        if (ranDdl ? classifier.refreshForced() : classifier.refreshDue(now)) {
            IdleChecks.readFunctions(this, p, now);
        }
        p.lastReturnedAt = now;
        return true;
    }

    // ---- used by the handles -------------------------------------------------------------------

    /** A connection for a handle to bind; it goes back through {@link #release} once bound, else {@link #putBack}. */
    public PhysicalConnection acquire() throws SQLException {
        return acquire(null);
    }

    /**
     * A connection within {@code timeout} for a check ({@code isValid}): it goes back through
     * {@link #putBack}. Null if none came free in time: a busy pool is no broken one.
     */
    public PhysicalConnection acquireWithin(Duration timeout) throws SQLException {
        try {
            return acquire(timeout);
        } catch (SQLTransientConnectionException e) {
            if (e.getCause() instanceof AcquireTimeoutException) {
                return null;
            }
            throw e;
        }
    }

    /**
     * Whether the pool would hand out a connection if one came free: not closed, circuit ACTIVE,
     * and a connection made and not yet destroyed (a connect under way is no evidence).
     */
    public boolean serving() {
        return !closed && pool.state() == CircuitBreakerState.ACTIVE && !connections.isEmpty();
    }

    /** {@link #acquire()} within {@code timeout}, or within the pool's acquireTimeout if null. */
    private PhysicalConnection acquire(Duration timeout) throws SQLException {
        try {
            Entry<PhysicalConnection> e = timeout == null ? pool.take() : pool.take(timeout);
            PhysicalConnection p = e.resource();
            if (p.entry == null) {
                p.entry = e; // the same entry for its whole life: written once
            }
            return p;
        } catch (AcquireTimeoutException e) {
            if (e.getCause() instanceof CreateTimedOut t) { // it was waiting for its own connect
                throw new SQLTransientConnectionException("pool '" + name + "': " + ConnectFailures.connectTimedOut(t,
                        timeout == null ? acquireTimeoutText : timeout.toMillis() + " ms") + " (" + e.stats() + "); the "
                        + "connect goes on in the background, bounded by the driver's connect and login timeouts", "08001", e);
            }
            throw new SQLTransientConnectionException("pool '" + name + "': no connection available within "
                    + (timeout == null ? acquireTimeoutText : timeout.toMillis() + " ms") + " (" + e.stats() + "); raise maxSize or acquireTimeout, "
                    + "or give connections back sooner", null, e);
        } catch (ServiceUnavailableException e) {
            if (e.heldByHand()) {
                throw new SQLTransientConnectionException("pool '" + name + "': failing fast, the circuit breaker was "
                        + "set INACTIVE by hand (the loompool endpoint, the MBean's deactivatePool, or Pool.deactivate()) "
                        + "and stays so until it is set ACTIVE or RECOVERING (" + e.stats() + ")", null, e);
            }
            throw new SQLTransientConnectionException("pool '" + name + "': failing fast, the circuit breaker is "
                    + e.state() + " after repeated connection failures (" + e.stats() + ")", null, e);
        } catch (PoolClosedException e) {
            throw closed(e);
        } catch (PoolException e) {
            if (e.getCause() instanceof SQLException driver) {
                throw ConnectFailures.connectFailed(this, driver);
            }
            throw new SQLException("pool '" + name + "': could not open a connection", "08001", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("pool '" + name + "': interrupted while waiting for a connection", null, e);
        }
    }

    /**
     * Gives {@code p} back if {@code binding} still holds it: destroyed if broken, else reset and
     * reused. A handle passes the binding it made, the reclaimer the one it saw.
     *
     * @return false if somebody else (the handle, or the reclaimer) ended that binding already
     */
    public boolean release(PhysicalConnection p, long binding) {
        return p.unbind(binding) && giveBack(p);
    }

    /**
     * Returns {@code p}, whose binding the caller ended; its holder stays as the note of its
     * last holder. A broken connection goes back too, and the release check retires it: one dead
     * connection says nothing about the database (a terminated backend, a session timeout, a
     * network timeout, an abort), so it is no breaker failure. It still has the idle connections
     * checked at once, and if the database is really gone the connects that follow fail and open
     * the breaker: only they are evidence that it is unreachable.
     */
    public boolean giveBack(PhysicalConnection p) {
        if (p.callsUnderWay()) {
            // Its binding ended (a close or a release on one thread) while another thread's commit(),
            // rollback() or setter is under way on it: that call must not land in the next borrower's session.
            p.markClosedUnderUser();
        }
        ConnectionState state = p.state();
        if (state == ConnectionState.LENDING_DRIVER_OBJECTS) {
            p.endLendingDriverObjects(); // its LOBs end with the handle
        }
        putBack(p); // its release check forgets the bind site, once the Pin events of the binding have read it
        return true;
    }

    /** Gives back {@code p}, acquired and never bound (or unbound by the caller): the release check resets it. */
    public void putBack(PhysicalConnection p) {
        pool.giveBack(p.entry);
    }

    /**
     * Closes the connections idle now. They are marked first, then borrowed as any caller would
     * (never ahead of a waiter) and retired on their way back, which is no breaker failure; while
     * the circuit is not active, at the next idle check instead. A
     * connection made since (the refill) is held aside until the end, so that it cannot come back
     * in front of the marked ones. The pool refills to minSize.
     *
     * @return how many connections were marked; each is closed now or at its next check
     */
    public int evictIdle() {
        int marked = 0;
        for (PhysicalConnection p : connections) {
            if (p.binding() == 0) {
                p.markEvicted();
                marked++;
            }
        }
        if (pool.state() != CircuitBreakerState.ACTIVE) {
            // A borrow now would be refused, and counted as an application's failed borrow: the
            // marked ones go at the idle check, which an open circuit brings forward.
            return marked;
        }
        List<Lease<PhysicalConnection>> asideFromEviction = new ArrayList<>();
        try {
            int evicted = 0;
            while (evicted < marked && pool.stats().idle() > 0) {
                Optional<Lease<PhysicalConnection>> lease = pool.tryAcquire();
                if (lease.isEmpty()) {
                    break;
                }
                if (lease.get().resource().state() == ConnectionState.EVICTED) {
                    lease.get().close();
                    evicted++;
                } else {
                    asideFromEviction.add(lease.get());
                }
            }
        } catch (PoolException e) {
            log.debug("pool '{}': eviction stopped early; the rest go at their next check", name,
                    factory.secrets().mask(e));
        } finally {
            asideFromEviction.forEach(Lease::close);
        }
        return marked;
    }

    /** Why the pool has no connection yet (masked), until it opens its first; else null. */
    public String initialConnectError() {
        return connector.initialError();
    }

    /** One reclaimer scan now (for tests). */
    public void scanNow() {
        watcher.scan();
    }

    /** The read replicas' pools, on the primary's; null without replicas, and on a replica's own. */
    public Replicas replicas() {
        return replicas;
    }

    /** The primary's pool routes read-only work to {@code r} from now: once, at start, before it is used. */
    public void attachReplicas(Replicas r) {
        if (replicas != null) {
            throw new IllegalStateException("pool '" + name + "' has its replicas already");
        }
        replicas = r;
    }

    /** Whether {@link #close()} began: a handle that lost its connection to it says "closed", not "reclaimed". */
    public boolean isClosed() {
        return closed;
    }

    public SQLException closed(Throwable cause) {
        return new SQLException("pool '" + name + "' is closed", "08003", cause);
    }

    /**
     * Closes this pool and its replicas' in two steps, so that no waiter waits for another pool's
     * grace: first every engine pool closes (its waiters are woken at once with the news, its idle
     * connections closed), then the connections still bound are given their grace and aborted.
     */
    public void close() {
        closeWaiters();
        if (replicas != null) {
            replicas.forEach(JdbcPool::abortBound);
        }
        abortBound();
    }

    /** Step one: closed to new acquires; waiters woken; idle connections closed. */
    void closeWaiters() {
        closed = true;
        watcher.stop();
        try {
            pool.close();
        } catch (PoolException e) {
            log.warn("pool '{}': some connections failed to close", name, factory.secrets().mask(e));
        }
        if (replicas != null) {
            replicas.forEach(JdbcPool::closeWaiters);
        }
    }

    /** Step two: what handles still hold gets its grace, then is aborted. */
    void abortBound() {
        PoolCloseAborts.abortBound(this);
    }
}
