package dev.loompool.bench.chaos;

import dev.loompool.ServiceUnavailableException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** The transfers of one run: how many completed and failed, why they failed, and how long each took. */
final class Requests {

    /** Examples kept of each kind of failure and of requests over the bound. */
    private static final int EXAMPLES = 3;

    private final long boundNanos;
    private final LongAdder completed = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final AtomicLong maxNanos = new AtomicLong();
    private final LongAdder overBound = new LongAdder();
    private final ConcurrentLinkedQueue<String> overBoundExamples = new ConcurrentLinkedQueue<>();
    private final Map<String, LongAdder> failureKinds = new ConcurrentHashMap<>();
    private final Map<String, String> failureExamples = new ConcurrentHashMap<>();

    Requests(long boundNanos) {
        this.boundNanos = boundNanos;
    }

    /** One transfer that took {@code nanos}, from getConnection to close; {@code error} null if it committed. */
    void record(long atMillis, long nanos, Throwable error) {
        maxNanos.accumulateAndGet(nanos, Math::max);
        if (error == null) {
            completed.increment();
        } else {
            failed.increment();
            String kind = kind(error);
            failureKinds.computeIfAbsent(kind, k -> new LongAdder()).increment();
            failureExamples.putIfAbsent(kind, String.valueOf(error.getMessage()).lines().findFirst().orElse(""));
        }
        if (nanos > boundNanos) {
            overBound.increment();
            if (overBoundExamples.size() < EXAMPLES) {
                overBoundExamples.add(String.format("at %.3f s: %d ms, %s", atMillis / 1000.0, nanos / 1_000_000,
                        error == null ? "committed" : kind(error) + ": " + error.getMessage()));
            }
        }
    }

    /**
     * Why a transfer failed, in a few buckets: the pool's own refusals (a timeout, the breaker) and
     * otherwise the SQLState the driver reported (08xxx connection failures, 57P01 admin shutdown,
     * 57P03 cannot connect now, …).
     */
    static String kind(Throwable error) {
        if (error instanceof SQLTransientConnectionException) {
            return error.getCause() instanceof ServiceUnavailableException
                    ? "breaker open (fail fast)" : "acquire timeout";
        }
        if (error instanceof SQLException e && e.getSQLState() != null) {
            return "SQLState " + e.getSQLState();
        }
        return error.getClass().getSimpleName();
    }

    long completed() {
        return completed.sum();
    }

    long failed() {
        return failed.sum();
    }

    long maxMillis() {
        return maxNanos.get() / 1_000_000;
    }

    long overBound() {
        return overBound.sum();
    }

    List<String> overBoundExamples() {
        return List.copyOf(overBoundExamples);
    }

    /** Each kind of failure with its count and the first message seen, by kind. */
    Map<String, String> failures() {
        Map<String, String> out = new TreeMap<>();
        failureKinds.forEach((k, n) -> out.put(k, n.sum() + "  (e.g. " + failureExamples.get(k) + ")"));
        return out;
    }
}
