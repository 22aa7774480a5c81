package dev.loompool;

import java.time.Duration;

/** No resource became available within the acquire timeout. The message carries the counts. */
public class AcquireTimeoutException extends PoolException {

    private static final long serialVersionUID = 1L;

    private final Duration timeout;
    private final transient PoolStats stats;

    public AcquireTimeoutException(String poolName, Duration timeout, PoolStats stats) {
        super("pool '" + poolName + "': no resource available within " + timeout.toMillis() + " ms ("
                + stats + "); raise maxSize or acquireTimeout, or release leases sooner");
        this.timeout = timeout;
        this.stats = stats;
    }

    /** The timeout the caller waited. */
    public Duration timeout() {
        return timeout;
    }

    /** The pool's counts when the wait ended. */
    public PoolStats stats() {
        return stats;
    }
}
