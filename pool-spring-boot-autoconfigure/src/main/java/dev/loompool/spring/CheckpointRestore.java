package dev.loompool.spring;

import dev.loompool.CircuitBreakerState;
import dev.loompool.Pool;
import dev.loompool.jdbc.LoomPoolDataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.Lifecycle;
import org.springframework.context.event.ContextClosedEvent;

/**
 * Checkpoint and restore (CRaC) for every loompool of the context, as Boot's
 * {@code HikariCheckpointRestoreLifecycle} does for Hikari. Spring stops the context's lifecycle
 * beans before a checkpoint and starts them after the restore. On stop each running pool stops
 * handing out connections (its circuit is set INACTIVE, so a caller fails fast instead of opening a
 * socket the checkpoint would freeze), waits up to its acquire timeout (at least its validation
 * timeout, one second at least) for the connections in use to come back, and closes every physical connection. On start it opens them again (min-size), with
 * no restart of the context. A pool whose circuit was not ACTIVE before the checkpoint (held by an
 * operator, or open in an outage) is left to whoever moves it.
 */
final class CheckpointRestore implements Lifecycle, ApplicationListener<ContextClosedEvent> {

    private static final Log logger = LogFactory.getLog(CheckpointRestore.class);
    private static final long POLL_MILLIS = 10;

    private final ApplicationContext context;
    /** The pools this lifecycle stopped and must start again; empty while running. */
    private final List<LoomPoolDataSource> stopped = new ArrayList<>();
    private volatile boolean running = true;
    /** The context is closing: its pools close right after, with nothing to wait for here. */
    private volatile boolean closing;

    CheckpointRestore(ApplicationContext context) {
        this.context = context;
    }

    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        if (event.getApplicationContext() == context) { // a child context's close reaches us too
            closing = true; // published before the lifecycle beans are stopped
        }
    }

    @Override
    public void stop() {
        if (closing) {
            running = false;
            return;
        }
        for (LoomPoolDataSource ds : PoolWiring.pools(context).values()) {
            if (ds.isRunning() && ds.getPool().state() == CircuitBreakerState.ACTIVE) {
                ds.getPool().deactivate();
                stopped.add(ds);
                closeEveryConnection(ds);
            }
        }
        running = false;
    }

    @Override
    public void start() {
        for (LoomPoolDataSource ds : stopped) {
            if (ds.isRunning()) {
                ds.getPool().activate(); // refills to min-size
            }
        }
        stopped.clear();
        running = true;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * Marks the idle connections for eviction and has them checked: with the circuit open no
     * acquire reaches them, and opening it (again) by hand checks the idle ones at once.
     */
    private static void evictIdle(LoomPoolDataSource ds) {
        ds.evictIdle();
        ds.getPool().deactivate();
    }

    private static void closeEveryConnection(LoomPoolDataSource ds) {
        Pool<?> pool = ds.getPool();
        // At least the idle check's own timeout (isValid's, in whole seconds, one at least): closing
        // an idle connection goes through that check.
        Duration check = Duration.ofSeconds(Math.max(1, (ds.getValidationTimeout().toMillis() + 999) / 1000));
        Duration timeout = ds.getAcquireTimeout().compareTo(check) > 0 ? ds.getAcquireTimeout() : check;
        long deadline = System.nanoTime() + timeout.toNanos();
        evictIdle(ds);
        try {
            while (pool.stats().total() > 0 && System.nanoTime() - deadline < 0) {
                TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
                evictIdle(ds); // the ones given back since
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (pool.stats().total() > 0) {
            logger.warn("loompool '" + ds.getPoolName() + "': " + pool.stats().total() + " connection(s) still open "
                    + timeout.toMillis() + " ms after the checkpoint began (" + pool.stats() + "); the checkpoint may"
                    + " fail on their sockets");
        } else {
            logger.info("loompool '" + ds.getPoolName() + "': every connection closed for the checkpoint");
        }
    }
}
