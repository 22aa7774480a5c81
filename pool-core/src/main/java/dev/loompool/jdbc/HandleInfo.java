package dev.loompool.jdbc;

import java.time.Duration;
import java.util.Set;

/**
 * A logical connection that holds a physical connection now, as the Actuator endpoint shows it:
 * why it is pinned, and since when.
 *
 * @param ownerThread the name of the thread that used it last
 * @param bound how long it has held its physical connection
 * @param pins why it keeps it
 * @param longestPin the reason that has held it longest: of the reasons that outlive a statement
 *     (TRANSACTION, SESSION_STATE, FRAMEWORK_TRANSACTION, EXPLICIT) the oldest; only when none of
 *     them holds, a per-statement one (or RELEASE_MODE), counted from the bind; null if none
 * @param longestPinFor how long {@code longestPin} has held it; {@link Duration#ZERO} if none
 * @param pinStatement the first line of the statement that started {@code longestPin}, every literal
 *     replaced by {@code ?} and cut at 200 characters; or the call that did
 *     ({@code setAutoCommit(false)}, {@code unwrap(PGConnection)}, {@code pin()}); null if unknown
 * @param bindSite where the application bound it: the first stack frame outside loompool, the JDK,
 *     JDBC drivers, Spring and Hibernate; null unless {@code leakDetectionThreshold} is set (the
 *     stack is captured at the bind only then)
 */
public record HandleInfo(String ownerThread, Duration bound, Set<PinReason> pins, PinReason longestPin,
        Duration longestPinFor, String pinStatement, String bindSite) {
}
