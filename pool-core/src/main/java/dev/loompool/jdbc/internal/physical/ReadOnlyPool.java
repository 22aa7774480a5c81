package dev.loompool.jdbc.internal.physical;

import dev.loompool.CircuitBreakerState;
import dev.loompool.Lease;
import dev.loompool.Pool;
import dev.loompool.PoolException;
import dev.loompool.PoolStats;
import java.time.Duration;
import java.util.Optional;

/**
 * What the data source's {@code getPool()} returns: the pool's stats and circuit breaker, and no
 * way to take a connection around the handles, which would skip binding, reset and accounting.
 */
public final class ReadOnlyPool implements Pool<Object> {

    private final Pool<PhysicalConnection> pool;

    public ReadOnlyPool(Pool<PhysicalConnection> pool) {
        this.pool = pool;
    }

    private PoolException readOnly(String what) {
        return new PoolException("pool '" + pool.name() + "': " + what + " is not allowed on the read-only "
                + "view of a loompool data source; use getConnection(), or close the data source");
    }

    @Override
    public Lease<Object> acquire() {
        throw readOnly("acquire");
    }

    @Override
    public Lease<Object> acquire(Duration timeout) {
        throw readOnly("acquire");
    }

    @Override
    public Optional<Lease<Object>> tryAcquire() {
        throw readOnly("tryAcquire");
    }

    @Override
    public void close() {
        throw readOnly("close");
    }

    @Override
    public PoolStats stats() {
        return pool.stats();
    }

    @Override
    public String name() {
        return pool.name();
    }

    @Override
    public boolean isClosed() {
        return pool.isClosed();
    }

    @Override
    public CircuitBreakerState state() {
        return pool.state();
    }

    @Override
    public void activate() {
        pool.activate();
    }

    @Override
    public void deactivate() {
        pool.deactivate();
    }

    @Override
    public void recover() {
        pool.recover();
    }
}
