package dev.loompool.bench.chaos;

import dev.loompool.testsupport.PgCluster;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The invariants watched while the load runs, each on its own platform thread:
 * <ul>
 *   <li>every 50 ms, the pool's counts: {@code total == idle + inUse <= maxSize};</li>
 *   <li>every 200 ms, the client backends on the server against the pool's total;</li>
 *   <li>every second, the sum of the balances.</li>
 * </ul>
 *
 * <p>The backend rule, and why it tolerates a moment's excess, is {@link BackendRule}. The admin
 * connections are not counted.
 */
final class Watchers {

    private static final int EXAMPLES = 5;

    private final PgCluster cluster;
    private final Bank bank;
    private final PoolUnderTest pool;
    private final Faults faults;
    private final Timeline timeline;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stop;

    final LongAdder countSamples = new LongAdder();
    final LongAdder countViolations = new LongAdder();
    final ConcurrentLinkedQueue<String> countExamples = new ConcurrentLinkedQueue<>();
    final AtomicInteger maxTotal = new AtomicInteger();

    final LongAdder backendSamples = new LongAdder();
    final LongAdder backendUnavailable = new LongAdder();
    final AtomicInteger maxBackends = new AtomicInteger();
    final AtomicInteger maxExcess = new AtomicInteger();
    final LongAdder backendViolations = new LongAdder();
    final ConcurrentLinkedQueue<String> backendExamples = new ConcurrentLinkedQueue<>();

    final LongAdder sumChecks = new LongAdder();
    final LongAdder sumUnavailable = new LongAdder();
    final LongAdder sumMismatches = new LongAdder();
    final ConcurrentLinkedQueue<String> sumExamples = new ConcurrentLinkedQueue<>();

    Watchers(PgCluster cluster, Bank bank, PoolUnderTest pool, Faults faults, Timeline timeline) {
        this.cluster = cluster;
        this.bank = bank;
        this.pool = pool;
        this.faults = faults;
        this.timeline = timeline;
    }

    void start() {
        threads.add(every("chaos-counts", 50, this::checkCounts));
        BackendRule rule = new BackendRule();
        threads.add(every("chaos-backends", 200, () -> checkBackends(rule)));
        threads.add(every("chaos-sum", 1_000, this::checkSum));
    }

    void stop() throws InterruptedException {
        stop = true;
        for (Thread t : threads) {
            t.join(30_000);
        }
    }

    private void checkCounts() {
        PoolUnderTest.Counts c = pool.counts();
        countSamples.increment();
        maxTotal.accumulateAndGet(c.total(), Math::max);
        if (!c.consistent()) {
            countViolations.increment();
            example(countExamples, "at " + seconds() + ": " + c);
        }
    }

    private void checkBackends(BackendRule rule) {
        int before = pool.counts().total();
        int backends;
        try {
            backends = cluster.clientBackends(Bank.DATABASE, faults.killedPids());
        } catch (SQLException e) {
            backendUnavailable.increment();
            rule.unavailable();
            return;
        }
        int after = pool.counts().total();
        backendSamples.increment();
        maxBackends.accumulateAndGet(backends, Math::max);
        maxExcess.accumulateAndGet(backends - Math.max(before, after), Math::max);
        long now = timeline.now();
        if (rule.violatedBy(now, backends, before, after)) {
            backendViolations.increment();
            example(backendExamples, "at " + seconds() + ": " + backends + " backends, pool total " + before + "/"
                    + after + " (before/after), above it for " + rule.excessMillis(now) + " ms");
        }
    }

    private void checkSum() {
        try {
            long total = bank.total();
            sumChecks.increment();
            if (total != bank.expectedTotal()) {
                sumMismatches.increment();
                example(sumExamples, "at " + seconds() + ": sum " + total + ", expected " + bank.expectedTotal());
            }
        } catch (SQLException e) {
            sumUnavailable.increment();
        }
    }

    private String seconds() {
        return String.format("%.3f s", timeline.now() / 1000.0);
    }

    private static void example(ConcurrentLinkedQueue<String> examples, String text) {
        if (examples.size() < EXAMPLES) {
            examples.add(text);
        }
    }

    private Thread every(String name, long periodMillis, Runnable check) {
        return Thread.ofPlatform().name(name).daemon().start(() -> {
            while (!stop) {
                long next = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(periodMillis);
                try {
                    check.run();
                } catch (RuntimeException e) {
                    System.err.println(name + ": " + e);
                }
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    try {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        });
    }
}
