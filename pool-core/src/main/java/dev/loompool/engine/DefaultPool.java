package dev.loompool.engine;

import dev.loompool.CircuitBreakerState;
import dev.loompool.DestroyReason;
import dev.loompool.Lease;
import dev.loompool.Pool;
import dev.loompool.PoolClock;
import dev.loompool.PoolClosedException;
import dev.loompool.PoolException;
import dev.loompool.PoolListener;
import dev.loompool.PoolStats;
import dev.loompool.ResourceCheck;
import dev.loompool.ResourceFactory;
import dev.loompool.ServiceUnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pool's policy: the acquire and release algorithms of DESIGN.md §3 and the callbacks. Every
 * callback (factory, checks, destructor) runs outside the lock, on a slot counted as in use
 * beforehand, so a slow or failing callback can neither overfill the pool nor lose a slot.
 */
final class DefaultPool<T> implements DirectPool<T> {

    private static final Logger log = LoggerFactory.getLogger(DefaultPool.class);

    private final String name;
    final ResourceFactory<T> factory;
    /** The user's checks and destructor, run so that nothing they throw escapes. */
    final Callbacks<T> callbacks;
    private final ResourceCheck<T> beforeAcquire;
    /** {@link #beforeAcquire} when it is one that is told the caller's deadline (the JDBC engine's); else null. */
    private final HandOutCheck<T> handOutCheck;
    private final ResourceCheck<T> beforeRelease;
    private final int minSize;
    /** Changed at run time ({@link #acquireTimeout(Duration)}): the nanoseconds are written first, the duration shown with them second. */
    private volatile Duration acquireTimeout;
    private volatile long acquireTimeoutNanos;
    final PoolClock clock;
    final PoolListener listener;
    /** Whether anyone listens: without listeners the fast path reads the clock only when it must wait. */
    private final boolean timed;
    final Slots<T> slots;
    final Circuit circuit;
    final OutageLog outageLog;
    final Housekeeper<T> housekeeper;
    /** Runs the creates callers wait for with a deadline, and the validation of idle ones after a failure. */
    final ExecutorService connector;

    DefaultPool(PoolSettings<T> s) {
        name = s.name();
        factory = s.factory();
        beforeAcquire = s.beforeAcquire();
        handOutCheck = s.beforeAcquire() instanceof HandOutCheck<T> h ? h : null;
        beforeRelease = s.beforeRelease();
        minSize = s.minSize();
        acquireTimeout = s.acquireTimeout();
        acquireTimeoutNanos = PoolSettings.saturatedNanos(s.acquireTimeout());
        clock = s.clock();
        listener = Listeners.of(s.listeners());
        timed = listener != Listeners.NONE;
        callbacks = new Callbacks<>(name, s.destructor(), listener);
        slots = new Slots<>(s.minSize(), s.maxSize());
        Function<Throwable, String> shown = String::valueOf;
        if (s.factory() instanceof PrewarmPolicy policy) {
            shown = policy::shown;
        }
        outageLog = new OutageLog(name, clock, shown);
        circuit = new Circuit(this, s.circuitBreakerStrategy(), listener, outageLog);
        housekeeper = minSize > 0 || s.healthcheck() != null
                ? new Housekeeper<>(this, s.healthcheck(), s.healthcheckInterval()) : null;
        connector = Connect.executor(name);
    }

    // ---- acquire ----------------------------------------------------------------------------

    @Override
    public Lease<T> acquire() throws InterruptedException {
        return new PooledLease<>(this, obtain(acquireTimeoutNanos, acquireTimeout, true));
    }

    @Override
    public Entry<T> take() throws InterruptedException {
        return obtain(acquireTimeoutNanos, acquireTimeout, true);
    }

    @Override
    public Entry<T> take(Duration timeout) throws InterruptedException {
        return obtain(PoolSettings.saturatedNanos(timeout), timeout, true);
    }

    @Override
    public Lease<T> acquire(Duration timeout) throws InterruptedException {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be zero or positive, was " + timeout);
        }
        return new PooledLease<>(this, obtain(PoolSettings.saturatedNanos(timeout), timeout, true));
    }

    @Override
    public Optional<Lease<T>> tryAcquire() {
        try {
            Entry<T> entry = obtain(0, Duration.ZERO, false);
            return entry == null ? Optional.empty() : Optional.of(new PooledLease<>(this, entry));
        } catch (InterruptedException e) { // it waits for nobody, but for its own create
            Thread.currentThread().interrupt();
            throw new PoolException("pool '" + name + "': interrupted while creating a resource", e);
        }
    }

    /** An entry whose resource is the caller's now; null if it may not wait and none is free. */
    private Entry<T> obtain(long timeoutNanos, Duration timeout, boolean mayWait) throws InterruptedException {
        long start = timed ? clock.nanoTime() : Long.MIN_VALUE; // else read when first needed: off the lane
        if (slots.isClosed()) {
            throw closedException();
        }
        boolean probe = circuit.admit();
        try {
            Reservation grant = slots.fastTake(); // the lock-free lane, while nobody waits
            if (grant == null) {
                if (start == Long.MIN_VALUE) {
                    start = clock.nanoTime(); // before queueing: a queued waiter's deadline is already fixed
                }
                grant = slots.reserve(mayWait);
            }
            if (grant instanceof Waiter waiter) {
                grant = waiter.await(this, start, timeoutNanos, timeout);
            } else if (grant == Signal.CLOSED) {
                throw closedException();
            } else if (grant == Signal.NONE) {
                return null;
            }
            Entry<T> entry = fulfil(grant, start, createBudget(timeoutNanos), probe);
            if (probe) {
                circuit.probeSucceeded(); // created or validated: the backend answers, for everybody at once
            }
            return entry;
        } finally {
            if (probe) {
                circuit.endProbe();
            }
        }
    }

    /**
     * How long a caller waits for its own create: its timeout; a caller that may not wait for
     * others waits for its create up to the pool's acquire timeout, or, if that is zero too, until
     * the create returns (bounded by the factory's own timeouts).
     */
    private long createBudget(long timeoutNanos) {
        return timeoutNanos > 0 ? timeoutNanos : acquireTimeoutNanos > 0 ? acquireTimeoutNanos : Long.MAX_VALUE / 4;
    }

    /** A waiter that gives up after a grant reached it hands the grant on instead of losing it. */
    @SuppressWarnings("unchecked")
    void passOn(Reservation grant) {
        if (grant instanceof Entry) {
            putBack((Entry<T>) grant, true);
        } else if (grant == Signal.CREATE) {
            freeSlot(true);
        }
    }

    /**
     * Turns a grant into a lent entry: checks an idle resource, or creates a fresh one. A create gets
     * {@code budget} from the acquire's start (a caller that may not wait for others may still wait
     * for its own create, up to the pool's acquire timeout).
     */
    @SuppressWarnings("unchecked")
    private Entry<T> fulfil(Reservation grant, long start, long budget, boolean probe) throws InterruptedException {
        long rejectedCheckNanos = -1; // none yet: a rejection is said in the create's timeout
        for (;;) {
            Entry<T> entry;
            if (grant == Signal.CREATE) {
                if (start == Long.MIN_VALUE) {
                    // Only a caller served by the lane, with no listener and a check told no deadline,
                    // gets here unclocked: reading the clock for every such hand-out costs the hot path
                    // a fifth of its speed, so a create after a rejected idle resource counts from the rejection.
                    start = clock.nanoTime();
                }
                entry = new Connect<>(this, probe).forCaller(start, budget, rejectedCheckNanos);
            } else {
                entry = (Entry<T>) grant;
                Throwable rejected;
                long checkedAt = 0;
                if (handOutCheck != null) {
                    // The check reads the clock anyway (the JDBC engine's, to see how long the connection
                    // sat idle): this one reading serves it and the caller's deadline, which a rejection
                    // and the create after it then share, whether or not the acquire was clocked.
                    checkedAt = clock.nanoTime();
                    if (start == Long.MIN_VALUE) {
                        start = checkedAt; // served by the lane: the acquire began just now
                    }
                    rejected = callbacks.rejection(handOutCheck, entry.resource, checkedAt, start + budget);
                } else {
                    rejected = callbacks.rejection(beforeAcquire, entry.resource, "beforeAcquire");
                }
                if (rejected != null) {
                    if (handOutCheck != null) {
                        rejectedCheckNanos = clock.nanoTime() - checkedAt;
                    }
                    // Keep the slot and create on it. The other idle resources are likely as dead
                    // (a restart kills them all): they are checked side by side in the background
                    // instead of by this caller one timeout at a time (DESIGN §7, failover).
                    callbacks.destroyQuietly(entry, DestroyReason.BEFORE_ACQUIRE_REJECTED);
                    if (housekeeper != null) {
                        housekeeper.checkIdleSoon();
                    }
                    grant = Signal.CREATE;
                    continue;
                }
            }
            if (slots.isClosed()) { // closed while we created or checked
                callbacks.destroyQuietly(entry, DestroyReason.POOL_CLOSED);
                freeSlot(false);
                throw closedException();
            }
            if (timed) {
                long now = clock.nanoTime();
                listener.onAcquired(now - start);
                entry.acquiredAt = now;
            }
            return entry;
        }
    }

    // ---- release ----------------------------------------------------------------------------

    @Override
    public void giveBack(Entry<T> entry) {
        end(entry, false);
    }

    /** Ends a lease: its holder gave the resource back, or (invalidated) asked for it to be destroyed. */
    void end(Entry<T> entry, boolean invalidated) {
        if (timed) {
            listener.onReleased(clock.nanoTime() - entry.acquiredAt);
        }
        if (slots.isClosed()) {
            callbacks.destroyQuietly(entry, DestroyReason.POOL_CLOSED);
            freeSlot(false);
        } else if (invalidated) {
            callbacks.destroyQuietly(entry, DestroyReason.INVALIDATED);
            fail(new PoolException("pool '" + name + "': resource invalidated by its holder"), true);
        } else {
            Throwable rejected = callbacks.rejection(beforeRelease, entry.resource, "beforeRelease");
            if (rejected != null) {
                callbacks.destroyQuietly(entry, DestroyReason.BEFORE_RELEASE_REJECTED);
                fail(rejected, true);
            } else {
                circuit.success();
                putBack(entry, true);
            }
        }
    }

    /**
     * Reports a failure, then frees the slot of the resource it cost, and has the idle resources
     * validated at once: after a connectivity failure they are likely dead too, and finding that
     * out one hand-out at a time would cost every caller a timeout. A background refill that failed
     * asks for no other: a database that is down is not hammered from the housekeeper.
     */
    void fail(Throwable error, boolean refill) {
        try {
            circuit.failure(error); // first: opening the circuit wakes the waiters with the news
        } finally {
            freeSlot(refill);
            if (housekeeper != null) {
                housekeeper.checkIdleSoon();
            }
        }
    }

    /** Returns a live resource whose slot the caller holds; destroys it if the pool closed, or it is surplus. */
    void putBack(Entry<T> entry, boolean hot) {
        List<Entry<T>> dead = slots.putBack(entry, hot);
        if (dead != null) {
            destroyDead(dead);
        }
    }

    /** Destroys what the slots gave up: surplus after a lower maxSize, or anything after the close. */
    private void destroyDead(List<Entry<T>> dead) {
        for (Entry<T> e : dead) {
            callbacks.destroyQuietly(e, e.surplus ? DestroyReason.POOL_SHRUNK : DestroyReason.POOL_CLOSED);
            slots.free(e.surplus);
        }
    }

    // ---- run-time changes -------------------------------------------------------------------

    @Override
    public void resize(int newMin, int newMax) {
        if (newMin < 0 || newMax < 1 || newMin > newMax) {
            throw new IllegalArgumentException("pool '" + name + "': sizes must be 0 <= minSize <= maxSize and "
                    + "maxSize >= 1, was minSize=" + newMin + ", maxSize=" + newMax);
        }
        destroyDead(slots.resize(newMin, newMax));
        refillIfBelowMin();
    }

    @Override
    public void acquireTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("pool '" + name + "': acquireTimeout must be a duration of zero or more, "
                    + "was " + timeout);
        }
        acquireTimeoutNanos = PoolSettings.saturatedNanos(timeout);
        acquireTimeout = timeout;
    }

    /** Asks for a background refill if the pool is below minSize. */
    void refillIfBelowMin() {
        if (housekeeper != null && slots.belowMin()) {
            housekeeper.refillSoon();
        }
    }

    /** Frees a slot whose resource is gone; below minSize, asks for a background refill. */
    void freeSlot(boolean refill) {
        if (slots.free() && refill && housekeeper != null) {
            housekeeper.refillSoon();
        }
    }

    // ---- housekeeping -----------------------------------------------------------------------

    /** Starts the periodic work, once the pre-warm has filled the pool. */
    void startHousekeeping() {
        if (housekeeper != null) {
            housekeeper.start();
        }
    }

    // ---- circuit breaker --------------------------------------------------------------------

    @Override
    public CircuitBreakerState state() {
        return circuit.state();
    }

    @Override
    public void activate() {
        circuit.moveTo(CircuitBreakerState.ACTIVE);
    }

    @Override
    public void recover() {
        circuit.moveTo(CircuitBreakerState.RECOVERING);
    }

    @Override
    public void deactivate() {
        circuit.moveTo(CircuitBreakerState.INACTIVE);
        slots.wakeAll(Signal.UNAVAILABLE);
        if (housekeeper != null) {
            // As after a failure: the idle resources are checked at once, not at the next interval.
            // Nothing else reaches them while the circuit is open (an acquire is refused), so this is
            // also how the ones marked for eviction go (checkpoint/restore closes every connection so).
            housekeeper.checkIdleSoon();
        }
    }

    ServiceUnavailableException unavailable(CircuitBreakerState state) {
        listener.onRejected(state);
        return new ServiceUnavailableException(name, state, stats(), state == CircuitBreakerState.INACTIVE && circuit.heldByHand());
    }

    // ---- lifecycle and views ----------------------------------------------------------------

    @Override
    public void close() {
        List<Entry<T>> idleNow = slots.close();
        if (idleNow == null) {
            return;
        }
        if (housekeeper != null) {
            housekeeper.stop();
        }
        connector.shutdown(); // creates under way finish, see the pool closed, and destroy what they made
        PoolException failures = null;
        for (Entry<T> entry : idleNow) {
            Throwable failure = callbacks.destroy(entry, DestroyReason.POOL_CLOSED);
            slots.free();
            if (failure == null) {
                continue;
            }
            if (failures == null) {
                failures = new PoolException("pool '" + name + "': destructor failed while closing", failure);
            } else {
                failures.addSuppressed(failure);
            }
        }
        if (failures != null) {
            throw failures;
        }
    }

    @Override
    public boolean isClosed() {
        return slots.isClosed();
    }

    @Override
    public PoolStats stats() {
        return slots.stats();
    }

    @Override
    public String name() {
        return name;
    }

    PoolClosedException closedException() {
        return new PoolClosedException("pool '" + name + "' is closed (" + stats() + ")");
    }

    @Override
    public String toString() {
        return "Pool[" + name + ", " + circuit.state() + ", " + stats() + "]";
    }
}
