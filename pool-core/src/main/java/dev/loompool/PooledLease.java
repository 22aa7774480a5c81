package dev.loompool;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** The one lease type. Its state leaves OPEN by compare-and-set, so release happens once. */
final class PooledLease<T> implements Lease<T> {

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(PooledLease.class, "state", LeaseState.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final DefaultPool<T> pool;
    final Entry<T> entry;
    final long acquiredAt;
    /** Whether this lease is the circuit breaker's single RECOVERING probe. */
    final boolean probe;

    @SuppressWarnings("unused") // accessed through STATE
    private volatile LeaseState state = LeaseState.OPEN;

    PooledLease(DefaultPool<T> pool, Entry<T> entry, long acquiredAt, boolean probe) {
        this.pool = pool;
        this.entry = entry;
        this.acquiredAt = acquiredAt;
        this.probe = probe;
    }

    @Override
    public T resource() {
        LeaseState current = state;
        if (current != LeaseState.OPEN) {
            throw new IllegalStateException("lease on pool '" + pool.name() + "' is " + current
                    + ": its resource may already belong to somebody else");
        }
        return entry.resource;
    }

    @Override
    public void close() {
        if (STATE.compareAndSet(this, LeaseState.OPEN, LeaseState.RELEASED)) {
            pool.release(this);
        }
    }

    @Override
    public void invalidate() {
        if (STATE.compareAndSet(this, LeaseState.OPEN, LeaseState.INVALIDATED)) {
            pool.invalidate(this);
        }
    }

    @Override
    public String toString() {
        return "Lease[pool=" + pool.name() + ", state=" + state + "]";
    }
}
