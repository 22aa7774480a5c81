package dev.loompool.jdbc.internal.physical;

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
 * connection, and their sample is the binding's length on the coarse clock (the hand-out's and
 * the release check's readings, {@link dev.loompool.PoolClock#coarseNanoTime()}). Every sample is
 * summed on the connection itself ({@link Local}): the common cycle allocates nothing and makes no
 * atomic operation more.
 * A replica's pool shares its primary's.
 */
public final class PinTimes {

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

    public static int bit(PinReason r) {
        return 1 << r.ordinal();
    }

    public static boolean lazy(PinReason r) {
        return (LAZY & bit(r)) != 0;
    }

    /**
     * Timed reason {@code r} starts on {@code p}, at {@code at}, by {@code by} (the SQL or the call;
     * a reference, masked when read). Flight Recorder's event begins if a recording wants one.
     */
    public static void began(PhysicalConnection p, PinReason r, long at, String by) {
        int i = r.ordinal();
        p.pinSince[i] = at;
        p.pinStartedBy[i] = by;
        p.pinsTimed |= bit(r);
        PinEvent.begin(p, i);
    }

    /** Timed reason {@code r} ended on {@code p} after {@code nanos}: a sample, and its event if one was begun. */
    public void ended(PhysicalConnection p, PinReason r, long nanos) {
        p.pinsTimed &= ~bit(r);
        p.pinLocal.add(r.ordinal(), Math.max(0, nanos));
        PinEvent.end(p, r.ordinal());
    }

    private void raiseMax(int i, long nanos) {
        long m;
        while (nanos > (m = max.get(i)) && !max.compareAndSet(i, m, nanos)) {
            Thread.onSpinWait();
        }
    }

    /**
     * The binding of {@code p} ends at {@code now}: a sample for each reason still held on it, the
     * timed ones from when they started, the lazy ones for the whole binding, on the coarse clock
     * ({@code coarseNow}; the hand-out noted the binding's start on it too). Each lazy sample is then
     * whole ticks, and their sum is right on average.
     */
    void bindingEnded(PhysicalConnection p, long now, long coarseNow) {
        int timed = p.pinsTimed;
        int lazy = p.pinsSeen & ~timed;
        p.pinsTimed = 0;
        p.pinsSeen = 0;
        for (; timed != 0; timed &= timed - 1) { // the set bits only: the common cycle has one, STATEMENT
            int i = Integer.numberOfTrailingZeros(timed);
            p.pinLocal.add(i, Math.max(0, now - p.pinSince[i]));
            PinEvent.end(p, i);
        }
        for (; lazy != 0; lazy &= lazy - 1) {
            p.pinLocal.add(Integer.numberOfTrailingZeros(lazy), Math.max(0, coarseNow - p.handedOutAt));
        }
    }

    /**
     * A connection's own sums of its samples: plain fields, written only by its holder (the handle
     * that ends a pin, the release check that ends the binding), so that the common cycle pays no
     * atomic operation (two LongAdders and a max cost P1 about 7 ns a cycle, and P7tx's transaction
     * pin as much again); read by {@link #snapshot} (a scrape may see them a moment late) and
     * folded into the shared sums when the connection goes ({@link #fold}).
     */
    static final class Local {
        final long[] count = new long[REASONS.length];
        final long[] total = new long[REASONS.length];
        final long[] max = new long[REASONS.length];

        void add(int i, long nanos) {
            count[i]++;
            total[i] += nanos;
            if (nanos > max[i]) {
                max[i] = nanos;
            }
        }
    }

    /** {@code p} is going: its own sums join the shared ones. */
    void fold(PhysicalConnection p) {
        Local l = p.pinLocal;
        for (int i = 0; i < REASONS.length; i++) {
            long n = l.count[i];
            if (n != 0) {
                l.count[i] = 0;
                counts[i].add(n);
                totals[i].add(l.total[i]);
                l.total[i] = 0;
                raiseMax(i, l.max[i]);
            }
        }
    }

    /** The sums so far: the shared ones and those of the connections of {@code pools} still open. */
    public Map<PinReason, PinTime> snapshot(Iterable<JdbcPool> pools) {
        long[] n = new long[REASONS.length];
        long[] total = new long[REASONS.length];
        long[] longest = new long[REASONS.length];
        for (int i = 0; i < REASONS.length; i++) {
            n[i] = counts[i].sum();
            total[i] = totals[i].sum();
            longest[i] = max.get(i);
        }
        for (JdbcPool pool : pools) {
            for (PhysicalConnection p : pool.connections) {
                Local l = p.pinLocal;
                for (int i = 0; i < REASONS.length; i++) {
                    n[i] += l.count[i];
                    total[i] += l.total[i];
                    longest[i] = Math.max(longest[i], l.max[i]);
                }
            }
        }
        Map<PinReason, PinTime> times = new EnumMap<>(PinReason.class);
        for (int i = 0; i < REASONS.length; i++) {
            times.put(REASONS[i], new PinTime(n[i], Duration.ofNanos(total[i]), Duration.ofNanos(longest[i])));
        }
        return times;
    }
}
