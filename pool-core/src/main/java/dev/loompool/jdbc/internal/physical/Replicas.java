package dev.loompool.jdbc.internal.physical;

import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read replicas of a primary (DESIGN.md §7): read-only work binds to them in turn. Binding
 * happens per statement or transaction, so this routes each unit of work, not each handle. A
 * replica that cannot give a connection (down, its breaker open, none free within the acquire
 * timeout) passes the work to the next one, and then to the primary unless the user said to fail.
 */
public final class Replicas {

    private static final Logger log = LoggerFactory.getLogger(Replicas.class);

    private final List<JdbcPool> pools;
    private final boolean fallbackToPrimary;
    /** Where the next unit of work starts looking; wraps around, taken modulo the count. */
    private final AtomicInteger next = new AtomicInteger();

    public Replicas(List<JdbcPool> pools, boolean fallbackToPrimary) {
        this.pools = List.copyOf(pools);
        this.fallbackToPrimary = fallbackToPrimary;
    }

    public List<JdbcPool> pools() {
        return pools;
    }

    /** A connection of a replica, or of {@code primary} when none has one and fallback is on. */
    public PhysicalConnection acquire(JdbcPool primary) throws SQLException {
        int start = next.getAndIncrement();
        SQLException failure = null;
        for (int i = 0; i < pools.size(); i++) {
            JdbcPool replica = pools.get(Math.floorMod(start + i, pools.size()));
            try {
                return replica.acquire();
            } catch (SQLException e) {
                if (Thread.currentThread().isInterrupted()) {
                    throw e; // the caller gave up: not a reason to try elsewhere
                }
                if (failure == null) {
                    failure = e;
                } else {
                    ConnectFailures.suppress(failure, e); // bounded: drivers may throw one instance again and again
                }
            }
        }
        if (!fallbackToPrimary) {
            throw failure;
        }
        log.debug("pool '{}': no replica could give a connection, read-only work goes to the primary ({})",
                primary.name, failure.getMessage());
        return primary.acquire();
    }

    void forEach(java.util.function.Consumer<JdbcPool> action) {
        pools.forEach(action);
    }
}
