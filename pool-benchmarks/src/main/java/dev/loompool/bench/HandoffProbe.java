package dev.loompool.bench;

import dev.loompool.Lease;
import dev.loompool.Pool;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * P2's load on the bare engine, split into its two parts (issue 28): how long a holder keeps a
 * resource (a park of 100 µs, as the stub query), and the gap between a release and the next
 * holder's first instruction with that resource (the hand-off's wake-up). Throughput is
 * {@code 10 / (hold + gap)}, so the split says which part a change could shrink.
 * {@code java -cp pool-benchmarks.jar dev.loompool.bench.HandoffProbe [loompool|fair|unfair] [seconds]};
 * {@code fair} and {@code unfair} are a {@link Semaphore} of 10 in front of a queue, for reference.
 */
final class HandoffProbe {

    private static final int THREADS = 2000;
    private static final int SIZE = 10;

    /** A pooled thing that remembers when it was last given back. */
    static final class Res {
        volatile long releasedAt;
    }

    private interface Source {
        Object take() throws InterruptedException;

        Res resource(Object taken);

        void give(Object taken);
    }

    private HandoffProbe() {
    }

    public static void main(String[] args) throws Exception {
        String kind = args.length > 0 ? args[0] : "loompool";
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        Source source = kind.equals("loompool") ? loompool() : semaphore(kind.equals("fair"));
        long warmupEnd = System.nanoTime() + 2_000_000_000L;
        long end = warmupEnd + seconds * 1_000_000_000L;
        LongAdder requests = new LongAdder();
        LongAdder gapNanos = new LongAdder();
        LongAdder gaps = new LongAdder();
        LongAdder holdNanos = new LongAdder();
        AtomicLongArray gapLog2 = new AtomicLongArray(64);
        Thread[] threads = new Thread[THREADS];
        for (int i = 0; i < THREADS; i++) {
            threads[i] = Thread.ofVirtual().start(() -> {
                try {
                    long now;
                    while ((now = System.nanoTime()) < end) {
                        Object taken = source.take();
                        long got = System.nanoTime();
                        Res r = source.resource(taken);
                        long released = r.releasedAt;
                        LockSupport.parkNanos(100_000);
                        long done = System.nanoTime();
                        r.releasedAt = done;
                        source.give(taken);
                        if (now >= warmupEnd) {
                            requests.increment();
                            holdNanos.add(done - got);
                            if (released != 0) {
                                gapNanos.add(got - released);
                                gaps.increment();
                                gapLog2.incrementAndGet(63 - Long.numberOfLeadingZeros(Math.max(1, got - released)));
                            }
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        var os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        Thread.sleep(Math.max(0, (warmupEnd - System.nanoTime()) / 1_000_000));
        long cpu = os.getProcessCpuTime();
        for (Thread t : threads) {
            t.join();
        }
        cpu = os.getProcessCpuTime() - cpu;
        long n = requests.sum();
        System.out.printf("%s: %,.0f req/s, mean hold (park 100 µs) %.1f µs, mean gap release -> next holder %.1f µs, "
                + "JVM CPU %.1f µs/request%n", kind, n / (double) seconds, holdNanos.sum() / 1e3 / n,
                gapNanos.sum() / 1e3 / gaps.sum(), cpu / 1e3 / n);
        StringBuilder line = new StringBuilder("gap, share below: ");
        long below = 0;
        for (int b = 0; b < 64; b++) {
            below += gapLog2.get(b);
            if (b >= 10 && b <= 17) { // 2 µs .. 262 µs
                line.append(String.format("%d µs %.1f%%  ", (2L << b) / 1000, 100.0 * below / gaps.sum()));
            }
        }
        System.out.println(line);
        System.exit(0);
    }

    private static Source loompool() {
        Pool<Res> pool = Pool.builder(Res::new).minSize(SIZE).maxSize(SIZE).acquireTimeout(Duration.ofSeconds(60)).build();
        return new Source() {
            @Override
            public Object take() throws InterruptedException {
                return pool.acquire();
            }

            @Override
            public Res resource(Object taken) {
                return ((Lease<?>) taken).resource() instanceof Res r ? r : null;
            }

            @Override
            public void give(Object taken) {
                ((Lease<?>) taken).close();
            }
        };
    }

    private static Source semaphore(boolean fair) {
        Semaphore permits = new Semaphore(SIZE, fair);
        ConcurrentLinkedQueue<Res> free = new ConcurrentLinkedQueue<>();
        for (int i = 0; i < SIZE; i++) {
            free.add(new Res());
        }
        return new Source() {
            @Override
            public Object take() throws InterruptedException {
                permits.acquire();
                return free.poll();
            }

            @Override
            public Res resource(Object taken) {
                return (Res) taken;
            }

            @Override
            public void give(Object taken) {
                free.add((Res) taken);
                permits.release();
            }
        };
    }
}
