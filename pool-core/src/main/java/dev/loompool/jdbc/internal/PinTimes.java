package dev.loompool.jdbc.internal;

import dev.loompool.jdbc.PinReason;
import dev.loompool.jdbc.PinTime;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * How long each pin reason held a physical connection (issue 28): one sample per binding a reason
 * held, recorded when it ends or when the binding does. The reasons a handle sets now and then
 * (a transaction, session state, a framework transaction, an explicit pin) read the pool's clock
 * when they start and end; the per-statement ones and RELEASE_MODE only set a bit on the
 * connection, and their sample is the binding's length, read by the release check's own clock
 * reading ({@link JdbcPool}'s reset): the common cycle reads no clock and allocates nothing more.
 * A replica's pool shares its primary's.
 */
final class PinTimes {

    private static final PinReason[] REASONS = PinReason.values();
    /** The reasons sampled as the binding's length: a bit on the connection, no clock. */
    static final int LAZY = bit(PinReason.STATEMENT) | bit(PinReason.STATEMENT_VALUE) | bit(PinReason.RELEASE_MODE);

    private final LongAdder[] counts = new LongAdder[REASONS.length];
    private final LongAdder[] totals = new LongAdder[REASONS.length];
    private final AtomicLongArray max = new AtomicLongArray(REASONS.length);

    PinTimes() {
        for (int i = 0; i < REASONS.length; i++) {
            counts[i] = new LongAdder();
            totals[i] = new LongAdder();
        }
    }

    static int bit(PinReason r) {
        return 1 << r.ordinal();
    }

    static boolean lazy(PinReason r) {
        return (LAZY & bit(r)) != 0;
    }

    void record(PinReason r, long nanos) {
        record(r.ordinal(), nanos);
    }

    private void record(int i, long nanos) {
        if (nanos < 0) {
            nanos = 0;
        }
        counts[i].increment();
        totals[i].add(nanos);
        long m;
        while (nanos > (m = max.get(i)) && !max.compareAndSet(i, m, nanos)) {
            Thread.onSpinWait();
        }
    }

    /**
     * The binding of {@code p} ends at {@code now}: a sample for each reason still held on it, the
     * timed ones from when they started, the lazy ones for the whole binding.
     */
    void bindingEnded(PhysicalConnection p, long now) {
        int timed = p.pinsTimed;
        int lazy = p.pinsSeen;
        p.pinsTimed = 0;
        p.pinsSeen = 0;
        for (int i = 0; i < REASONS.length; i++) {
            int b = 1 << i;
            if ((timed & b) != 0) {
                record(i, now - p.pinSince[i]);
            } else if ((lazy & b) != 0) {
                record(i, now - p.handedOutAt);
            }
        }
    }

    Map<PinReason, PinTime> snapshot() {
        Map<PinReason, PinTime> times = new EnumMap<>(PinReason.class);
        for (int i = 0; i < REASONS.length; i++) {
            times.put(REASONS[i], new PinTime(counts[i].sum(), Duration.ofNanos(totals[i].sum()),
                    Duration.ofNanos(max.get(i))));
        }
        return times;
    }
}
