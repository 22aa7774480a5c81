package dev.loompool.engine;

import dev.loompool.Lease;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The one lease type: fresh for every acquire, and as small as that allows (its entry and its
 * state). The state leaves OPEN by compare-and-set, so release happens once. OPEN is the field's
 * default, null, so the constructor writes nothing: no fence per acquire, and a lease published
 * by a data race still reads as OPEN rather than as a state it never had.
 */
final class PooledLease<T> implements Lease<T> {

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(PooledLease.class, "state", LeaseState.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final DefaultPool<T> pool;
    private final Entry<T> entry;
    /** Null while OPEN; accessed through STATE only. */
    @SuppressWarnings("unused")
    private LeaseState state;

    PooledLease(DefaultPool<T> pool, Entry<T> entry) {
        this.pool = pool;
        this.entry = entry;
    }

    @Override
    public T resource() {
        LeaseState current = (LeaseState) STATE.getAcquire(this);
        if (current != null) {
            throw new IllegalStateException("lease on pool '" + pool.name() + "' is " + current
                    + ": its resource may already belong to somebody else");
        }
        return entry.resource;
    }

    @Override
    public void close() {
        if (STATE.compareAndSet(this, null, LeaseState.RELEASED)) {
            pool.end(entry, false);
        }
    }

    @Override
    public void invalidate() {
        if (STATE.compareAndSet(this, null, LeaseState.INVALIDATED)) {
            pool.end(entry, true);
        }
    }

    @Override
    public String toString() {
        return "Lease[pool=" + pool.name() + ", state=" + state() + "]";
    }

    private LeaseState state() {
        LeaseState current = (LeaseState) STATE.getVolatile(this);
        return current == null ? LeaseState.OPEN : current;
    }
}
