package dev.loompool;

/** Why a pool destroyed a resource, as reported to {@link PoolListener#onDestroyed}. */
public enum DestroyReason {
    /** {@code beforeAcquire} returned false or threw. */
    BEFORE_ACQUIRE_REJECTED,
    /** {@code beforeRelease} returned false or threw. */
    BEFORE_RELEASE_REJECTED,
    /** The periodic healthcheck returned false or threw. */
    HEALTHCHECK_FAILED,
    /** The holder called {@link Lease#invalidate()}. */
    INVALIDATED,
    /** The pool was closed. */
    POOL_CLOSED,
    /** maxSize was lowered while the pool ran: a surplus resource, idle or returned. */
    POOL_SHRUNK
}
