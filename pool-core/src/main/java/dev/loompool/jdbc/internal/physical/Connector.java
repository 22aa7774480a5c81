package dev.loompool.jdbc.internal.physical;

import dev.loompool.ResourceFactory;
import dev.loompool.engine.PrewarmPolicy;
import dev.loompool.jdbc.internal.driver.JdbcUrls;
import dev.loompool.jdbc.internal.driver.Secrets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The factory a {@link JdbcPool} hands the generic pool: its connect, counted, and the start's
 * policy ({@code initializationFailTimeout}). It remembers why the pool has no connection yet, for
 * the health indicator, until the first connect succeeds.
 */
final class Connector implements ResourceFactory<PhysicalConnection>, PrewarmPolicy {

    private static final Logger log = LoggerFactory.getLogger(Connector.class);

    private final JdbcPool pool;
    private final Duration initializationFailTimeout;
    /** Whether the data source was closed: a start that retries gives up then. */
    private final BooleanSupplier closed;
    /** Connects tried so far: until the start returns, the start's attempts, named in its failure. */
    final AtomicInteger attempts = new AtomicInteger();
    /** Whether a connect ever succeeded; once true, {@link #initialError} stays null. */
    private volatile boolean connected;
    private volatile String initialError;

    Connector(JdbcPool pool, Duration initializationFailTimeout, BooleanSupplier closed) {
        this.pool = pool;
        this.initializationFailTimeout = initializationFailTimeout;
        this.closed = closed;
    }

    @Override
    public PhysicalConnection create() throws SQLException {
        attempts.incrementAndGet();
        try {
            PhysicalConnection p = pool.connect();
            if (!connected) {
                connected = true;
                initialError = null;
            }
            return p;
        } catch (SQLException | RuntimeException e) { // masked by the factory already
            if (!connected) {
                initialError = Secrets.quotesHidden(e.getMessage()); // shown by the health indicator
            }
            throw e;
        }
    }

    /** The last failed connect's masked message while no connect has succeeded yet; else null. */
    String initialError() {
        return connected ? null : initialError;
    }

    @Override
    public Duration prewarmFailTimeout() {
        return initializationFailTimeout;
    }

    /**
     * Passwords masked, and what the driver's message quotes hidden ({@link Secrets#quotesHidden}): the
     * value of the init SQL the server could not read. The exception thrown to a caller keeps it.
     */
    @Override
    public String shown(Throwable cause) {
        return pool.factory.secrets().mask(Secrets.quotesHidden(String.valueOf(cause)));
    }

    /** "could not connect", not "unreachable": the server may have answered, with an error. */
    @Override
    public boolean abandoned() {
        return closed.getAsBoolean();
    }

    @Override
    public void startedShort(int made, Throwable cause) {
        log.warn("pool '{}' started {}: could not connect to {} ({}); connecting in the background, requests fail "
                + "until it succeeds", pool.name, made == 0 ? "without connections" : "with " + made + " of minSize="
                + pool.minSize() + " connections", pool.factory.secrets().mask(JdbcUrls.redact(pool.factory.url())),
                pool.factory.secrets().mask(Secrets.quotesHidden(cause.getMessage())));
    }
}
