package dev.loompool.bench;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One pool's run of one scenario: requests, errors, and the full latency distribution over every
 * request in the measured window.
 */
final class Trial {

    final PoolKind pool;
    final long requests;
    final long errors;
    /**
     * The errors that were getConnection giving up ({@code SQLTransientConnectionException}: every
     * pool here throws it on an acquire timeout, and when it fails fast).
     */
    final long acquireFailures;
    final String firstError;
    final double seconds;
    final long[] sortedNanos;
    /**
     * Connections the pool opened in the measured window, by its own count
     * ({@link PoolKind#connectionsOpened}); -1 when not counted (a floor without a pool).
     */
    final long connectionsOpened;
    /** Connections the pool opened from its start to the end of the measured window; -1 when not counted. */
    final long connectionsOpenedTotal;
    final Map<String, Object> extra = new LinkedHashMap<>();

    Trial(PoolKind pool, long requests, long errors, long acquireFailures, String firstError, double seconds, long[] nanos,
            long connectionsOpened, long connectionsOpenedTotal) {
        this.pool = pool;
        this.requests = requests;
        this.errors = errors;
        this.acquireFailures = acquireFailures;
        this.firstError = firstError;
        this.seconds = seconds;
        this.sortedNanos = nanos;
        this.connectionsOpened = connectionsOpened;
        this.connectionsOpenedTotal = connectionsOpenedTotal;
        Arrays.sort(this.sortedNanos);
    }

    double perSecond() {
        return requests / seconds;
    }

    /** Connections opened per 1,000 requests in the measured window: the pool's churn. */
    double openedPerThousand() {
        return connectionsOpened * 1000.0 / requests;
    }

    /** The {@code q} quantile (0..1) in ms, over every recorded request. */
    double millis(double q) {
        if (sortedNanos.length == 0) {
            return Double.NaN;
        }
        int i = (int) Math.min(sortedNanos.length - 1, Math.ceil(q * sortedNanos.length) - 1);
        return sortedNanos[Math.max(0, i)] / 1e6;
    }

    double maxMillis() {
        return sortedNanos.length == 0 ? Double.NaN : sortedNanos[sortedNanos.length - 1] / 1e6;
    }
}
