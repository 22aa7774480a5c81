package dev.loompool.bench;

import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Runs a request on many threads at once for a warm-up and then a measured window, recording the
 * latency of every request that starts in the window. Each thread keeps its own array, so
 * recording adds no contention of its own. Given the pool's count of the connections it opened,
 * the calling thread reads it as the window starts and as it ends: the pool's churn in its steady
 * state, without the warm-up's.
 */
final class Load {

    @FunctionalInterface
    interface Request {
        void run() throws Exception;
    }

    private Load() {
    }

    static Trial run(PoolKind pool, Mode mode, int threads, boolean virtual, Request request) throws InterruptedException {
        return run(pool, mode.warmup, mode.measure, threads, virtual, null, request);
    }

    /** {@code opened}: the pool's count of the connections it has opened so far ({@link PoolKind#connectionsOpened}). */
    static Trial run(PoolKind pool, Mode mode, int threads, boolean virtual, LongSupplier opened, Request request)
            throws InterruptedException {
        return run(pool, mode.warmup, mode.measure, threads, virtual, opened, request);
    }

    /** With windows of its own (P10's application JVM needs a longer warm-up than a pool in this one). */
    static Trial run(PoolKind pool, Duration warmup, Duration measure, int threads, boolean virtual, LongSupplier opened,
            Request request) throws InterruptedException {
        long warmupEnd = System.nanoTime() + warmup.toNanos();
        long end = warmupEnd + measure.toNanos();
        CountDownLatch go = new CountDownLatch(1);
        AtomicLong errors = new AtomicLong();
        AtomicLong acquireFailures = new AtomicLong();
        AtomicReference<String> firstError = new AtomicReference<>();
        Queue<long[]> perThread = new ConcurrentLinkedQueue<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long[][] box = {new long[256]};
            Runnable work = () -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                int n = 0;
                long now;
                while ((now = System.nanoTime()) < end) {
                    boolean measured = now >= warmupEnd;
                    try {
                        request.run();
                    } catch (Exception e) {
                        if (measured) {
                            errors.incrementAndGet();
                            if (e instanceof SQLTransientConnectionException) {
                                acquireFailures.incrementAndGet();
                            }
                            firstError.compareAndSet(null, e.toString());
                        }
                        continue;
                    }
                    if (measured) {
                        if (n == box[0].length) {
                            box[0] = Arrays.copyOf(box[0], n * 2);
                        }
                        box[0][n++] = System.nanoTime() - now;
                    }
                }
                perThread.add(Arrays.copyOf(box[0], n));
            };
            workers.add(virtual ? Thread.ofVirtual().unstarted(work) : Thread.ofPlatform().unstarted(work));
        }
        workers.forEach(Thread::start);
        go.countDown();
        long openedInWindow = -1;
        long openedTotal = -1;
        if (opened != null) {
            parkUntil(warmupEnd);
            long before = opened.getAsLong();
            parkUntil(end);
            openedTotal = opened.getAsLong();
            openedInWindow = openedTotal - before;
        }
        for (Thread w : workers) {
            w.join();
        }
        long total = 0;
        for (long[] a : perThread) {
            total += a.length;
        }
        long[] all = new long[(int) total];
        int at = 0;
        for (long[] a : perThread) {
            System.arraycopy(a, 0, all, at, a.length);
            at += a.length;
        }
        return new Trial(pool, total, errors.get(), acquireFailures.get(), firstError.get(), measure.toNanos() / 1e9, all,
                openedInWindow, openedTotal);
    }

    /** Never early (a late wake-up only moves the count's window by as much): parkNanos may return at any time. */
    private static void parkUntil(long deadline) {
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }
}
