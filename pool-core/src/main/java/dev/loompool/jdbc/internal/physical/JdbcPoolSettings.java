package dev.loompool.jdbc.internal.physical;

import dev.loompool.jdbc.BindObserver;
import dev.loompool.jdbc.ReleaseMode;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * What one {@link JdbcPool} (the primary's or a replica's) is made with: the start reads it off
 * the frozen settings record, already validated. The sizes and the timeouts change later only
 * through {@link JdbcPool#change}.
 *
 * @param transactionPooler behind a pooler in transaction mode: session state is refused, and never reset
 * @param readOnlyByDefault the handles' readOnly unless they set it: true routes them to the replicas
 * @param closing whether the data source was closed: a start that retries gives up then
 */
public record JdbcPoolSettings(
        String name,
        int minSize,
        int maxSize,
        Duration acquireTimeout,
        Duration healthcheckInterval,
        Duration idleTimeout,
        Duration validationTimeout,
        Duration leakDetectionThreshold,
        Duration pinWarningThreshold,
        Duration initializationFailTimeout,
        ReleaseMode releaseMode,
        BindObserver bindObserver,
        boolean reclaimOnOwnerExit,
        boolean transactionPooler,
        boolean readOnlyByDefault,
        int circuitBreakerFailureThreshold,
        Duration circuitBreakerOpenDuration,
        BooleanSupplier closing) {
}
