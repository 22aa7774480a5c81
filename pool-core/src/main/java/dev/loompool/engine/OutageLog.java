package dev.loompool.engine;

import dev.loompool.CircuitBreakerState;
import dev.loompool.PoolClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an operator reads in the log during an outage: the circuit opening (WARN) and closing
 * (INFO), and failed creates (WARN). Rate-limited, so that an outage writes a few lines rather than
 * one per request or per probe: a failed create or a failed probe is logged at most once per
 * {@link #QUIET}, the next line telling how many were left out meanwhile; the rest go to DEBUG.
 */
final class OutageLog {

    private static final Logger log = LoggerFactory.getLogger(OutageLog.class);
    static final Duration QUIET = Duration.ofSeconds(30);
    private static final long QUIET_NANOS = QUIET.toNanos();

    private final String pool;
    private final PoolClock clock;
    /** A failure as a WARN line shows it: the factory's choice ({@link PrewarmPolicy#shown}). */
    private final Function<Throwable, String> shown;
    private final AtomicLong nextCreateLine = new AtomicLong(Long.MIN_VALUE);
    private final AtomicInteger createsLeftOut = new AtomicInteger();
    private final AtomicLong nextProbeLine = new AtomicLong(Long.MIN_VALUE);
    private final AtomicInteger probesLeftOut = new AtomicInteger();
    /** When the circuit last left ACTIVE, for the closing line. */
    private volatile long openedAt;

    OutageLog(String pool, PoolClock clock, Function<Throwable, String> shown) {
        this.pool = pool;
        this.clock = clock;
        this.shown = shown;
    }

    void createFailed(Throwable cause, boolean background) {
        if (turn(nextCreateLine)) {
            int leftOut = createsLeftOut.getAndSet(0);
            log.warn("pool '{}': could not create a resource{}{}: {}", pool, background ? " in the background" : "",
                    leftOut > 0 ? " (and " + leftOut + " more failures in the last " + QUIET.toSeconds() + " s)" : "",
                    shown.apply(cause));
        } else {
            createsLeftOut.incrementAndGet();
            if (log.isDebugEnabled()) {
                log.debug("pool '{}': could not create a resource: {}", pool, shown.apply(cause));
            }
        }
    }

    /** The circuit opened: {@code failures} in a row, the last one {@code cause} (null if opened by hand). */
    void opened(CircuitBreakerState from, int failures, Throwable cause) {
        if (from == CircuitBreakerState.RECOVERING) {
            if (turn(nextProbeLine)) {
                int leftOut = probesLeftOut.getAndSet(0);
                log.warn("pool '{}': circuit breaker still open: the probe failed{}; failing fast until the next "
                        + "probe: {}", pool, leftOut > 0 ? " (and " + leftOut + " probes before it)" : "",
                        shown.apply(cause));
            } else {
                probesLeftOut.incrementAndGet();
                if (log.isDebugEnabled()) {
                    log.debug("pool '{}': circuit breaker probe failed: {}", pool, shown.apply(cause));
                }
            }
            return;
        }
        openedAt = clock.nanoTime();
        nextProbeLine.set(openedAt + QUIET_NANOS);
        if (cause == null) {
            log.warn("pool '{}': circuit breaker opened by hand: failing fast", pool);
        } else {
            log.warn("pool '{}': circuit breaker opened after {} consecutive failures: failing fast until a probe "
                    + "connects; last failure: {}", pool, failures, shown.apply(cause));
        }
    }

    void closed() {
        long down = openedAt == 0 ? 0 : clock.nanoTime() - openedAt;
        probesLeftOut.set(0);
        log.info("pool '{}': circuit breaker closed: the database answers again (failed fast for {} ms)",
                pool, Duration.ofNanos(down).toMillis());
    }

    /** Whether this caller may write a line now; at most one per {@link #QUIET}. */
    private boolean turn(AtomicLong next) {
        long now = clock.nanoTime();
        long at = next.get();
        return (at == Long.MIN_VALUE || now - at >= 0) && next.compareAndSet(at, now + QUIET_NANOS);
    }
}
