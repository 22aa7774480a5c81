package dev.loompool.jdbc;

import java.time.Duration;

/**
 * How long physical connections stayed bound while one {@link PinReason} held them, since the pool
 * started ({@link LoomPoolDataSource#getPinTimes()}): one sample per binding the reason held, from
 * when it was set (or the binding began) until it ended or the binding did.
 *
 * <p>The per-statement reasons ({@link PinReason#STATEMENT}, {@link PinReason#STATEMENT_VALUE})
 * and {@link PinReason#RELEASE_MODE} read no clock of their own, which every statement would pay:
 * their sample is the length of the binding they held in, an upper bound.
 *
 * @param count the samples
 * @param total their sum
 * @param max the longest
 */
public record PinTime(long count, Duration total, Duration max) {
}
