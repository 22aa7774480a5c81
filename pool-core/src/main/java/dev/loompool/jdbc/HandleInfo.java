package dev.loompool.jdbc;

import java.time.Duration;
import java.util.Set;

/**
 * A logical connection that holds a physical connection now, as the Actuator endpoint shows it.
 *
 * @param ownerThread the name of the thread that used it last
 * @param bound how long it has held its physical connection
 * @param pins why it keeps it
 */
public record HandleInfo(String ownerThread, Duration bound, Set<PinReason> pins) {
}
