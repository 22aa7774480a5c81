package dev.loompool.jdbc.internal.physical;

import dev.loompool.CircuitBreakerStrategy;
import dev.loompool.Pool;

/** The configured consecutive-failures strategy, blind to {@link Retired} connections. */
final class BreakerStrategy implements CircuitBreakerStrategy {

    private final CircuitBreakerStrategy delegate;

    BreakerStrategy(CircuitBreakerStrategy delegate) {
        this.delegate = delegate;
    }

    @Override
    public void reportSuccess(Pool<?> pool) {
        delegate.reportSuccess(pool);
    }

    @Override
    public void reportFailure(Pool<?> pool, Throwable error) {
        if (!(error instanceof Retired)) {
            delegate.reportFailure(pool, error);
        }
    }

    @Override
    public void reportRejected(Pool<?> pool) {
        delegate.reportRejected(pool);
    }
}
