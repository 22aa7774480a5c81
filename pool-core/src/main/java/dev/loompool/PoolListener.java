package dev.loompool;

/**
 * Observes a pool, for metrics. Every method has a no-op default, so listeners implement only
 * what they need and keep compiling when methods are added. Methods run on the pool's hot paths,
 * outside its lock: they must be fast and must not block. An exception thrown here is logged and ignored.
 */
public interface PoolListener {

    /** A resource was created, taking {@code createNanos}. */
    default void onCreated(long createNanos) {
    }

    /** The factory threw {@code error}. */
    default void onCreationFailed(Throwable error) {
    }

    /** An acquire got a resource after waiting {@code waitNanos} (creation included). */
    default void onAcquired(long waitNanos) {
    }

    /** A lease was closed or invalidated after holding its resource for {@code useNanos}. */
    default void onReleased(long useNanos) {
    }

    /** A resource was destroyed. */
    default void onDestroyed(DestroyReason reason) {
    }

    /** An acquire gave up after waiting {@code waitNanos}. */
    default void onTimedOut(long waitNanos) {
    }

    /**
     * An acquire failed after waiting {@code waitNanos}: the resource created for it could not be
     * made ({@code error}). {@link #onCreationFailed} reports the same create, whoever waited for it.
     */
    default void onAcquireFailed(long waitNanos, Throwable error) {
    }

    /** The circuit breaker rejected an acquire. */
    default void onRejected(CircuitBreakerState state) {
    }

    /** The circuit breaker moved from {@code from} to {@code to}. */
    default void onStateChanged(CircuitBreakerState from, CircuitBreakerState to) {
    }
}
