package dev.loompool.bench;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * P8 (issue 15): 10,000 virtual threads over max 10, each looping P3's request (query, 20 ms wait
 * outside a transaction, query), each holding its connection handle across the wait. The floor is
 * what a user could write by hand without a pool: the 10 pgjdbc connections in a queue, each
 * statement taking one and giving it back, so that none is held across the wait; each trial
 * measures it right before the pool (as P7 does), so that the ratio pairs two runs under the same
 * load of the shared host. The ceiling, a reference, is pgbench's C client running the same two
 * {@code SELECT 1} per transaction on 10 connections, once per run. A short phase after each trial
 * parks every thread in the middle of its wait and reads the heap after a full GC: with an open
 * handle per thread, less the same threads parked with none (the mean of a reading before and one
 * after), per open handle; the median of three.
 */
final class P8ManyThreads implements ContendedScenario {

    static final int MAX_SIZE = 10;
    static final Duration ACQUIRE_TIMEOUT = Duration.ofSeconds(30);

    /** pgbench's transactions (= requests) per second, measured at the first trial of the run. */
    private Double ceiling;

    static int threads(Mode mode) {
        return mode == Mode.FULL ? 10_000 : 2_000;
    }

    @Override
    public String id() {
        return "P8";
    }

    @Override
    public String title() {
        return "PostgreSQL, 10,000 virtual threads over max 10 (quick: 2,000): query, 20 ms wait outside a transaction, "
                + "query; floor: the same on 10 pgjdbc connections in a queue, taken and given back around each statement; "
                + "ceiling: pgbench, the same two SELECT 1 per transaction on 10 connections";
    }

    @Override
    public String target() {
        return ">= 0.95x the hand-written floor's requests/s and >= 20x HikariCP's; no request past the "
                + ACQUIRE_TIMEOUT.toSeconds() + " s acquire timeout";
    }

    @Override
    public Trial run(PoolKind pool, Mode mode) throws Exception {
        if (ceiling == null) {
            HostCpu cpu = new HostCpu();
            ceiling = Postgres.pgbench("SELECT 1;\nSELECT 1;\n", MAX_SIZE, Postgres.seconds(mode));
            System.out.printf("P8 ceiling: pgbench %,.0f tps, host busy cores %.2f%n", ceiling, cpu.hostCores());
        }
        Trial floor = floor(mode);
        DataSource ds = open(pool);
        try {
            HostCpu cpu = new HostCpu();
            Trial t = Load.run(pool, mode, threads(mode), true, () -> PoolKind.connectionsOpened(ds),
                    () -> P3SlowCall.request(ds));
            t.extra.put("floor req/s", Math.round(floor.perSecond()));
            t.extra.put("x floor", Math.round(t.perSecond() / floor.perSecond() * 1000) / 1000.0);
            t.extra.put("x ceiling", Math.round(t.perSecond() / ceiling * 100) / 100.0);
            t.extra.put("JVM cores", Math.round(cpu.jvmCores() * 100) / 100.0); // warm-up and window: of 2 on this host
            t.extra.put("host busy cores", Math.round(cpu.hostCores() * 100) / 100.0);
            t.extra.put("past timeout", t.acquireFailures);
            heapPerHandle(ds, threads(mode), t);
            return t;
        } finally {
            PoolKind.close(ds);
        }
    }

    /** The pool of a trial (and of P7's phase "p8"): max {@link #MAX_SIZE}, all opened at start. */
    static DataSource open(PoolKind pool) throws SQLException {
        return pool.open(new PoolKind.Settings(Postgres.URL, null, null, MAX_SIZE, MAX_SIZE, ACQUIRE_TIMEOUT));
    }

    double ceiling() {
        return ceiling;
    }

    /**
     * The floor: the same request on {@link #MAX_SIZE} driver connections in a queue, no pool. Each
     * statement takes a connection and gives it back (take, query, give back; sleep 20 ms; take,
     * query, give back), which is what lets 10 connections serve the threads while they wait.
     */
    private static Trial floor(Mode mode) throws Exception {
        BlockingQueue<Connection> idle = new ArrayBlockingQueue<>(MAX_SIZE);
        for (int i = 0; i < MAX_SIZE; i++) {
            idle.add(DriverManager.getConnection(Postgres.URL));
        }
        try {
            return Load.run(PoolKind.LOOMPOOL, mode, threads(mode), true, () -> {
                queryOnAny(idle);
                Thread.sleep(20);
                queryOnAny(idle);
            });
        } finally {
            for (Connection c : idle) { // every load thread has ended: all 10 are back
                c.close();
            }
        }
    }

    private static void queryOnAny(BlockingQueue<Connection> idle) throws Exception {
        Connection c = idle.take();
        try {
            P3SlowCall.query(c);
        } finally {
            idle.put(c);
        }
    }

    /**
     * Parks {@code n} virtual threads at a latch, first holding nothing, then each after
     * getConnection and a query (the handle open, as in the middle of the 20 ms wait), and reads the
     * heap after a full GC both times. With max 10, HikariCP's threads beyond the 10 holders wait
     * in getConnection instead: their cost is counted too, spread over its 10 open handles.
     */
    private static void heapPerHandle(DataSource ds, int n, Trial t) throws Exception {
        parked(n, null); // the first reading after the load still holds some of its state: discarded
        long bare = parked(n, null)[0], low = bare, high = bare;
        double[] perHandle = new double[3];
        long open = 0;
        for (int i = 0; i < perHandle.length; i++) { // readings vary by some 100 B per thread: the median of three
            long[] holding = parked(n, ds);
            long next = parked(n, null)[0];
            open = holding[1];
            perHandle[i] = (holding[0] - (bare + next) / 2.0) / Math.max(1, open);
            bare = next;
            low = Math.min(low, next);
            high = Math.max(high, next);
        }
        java.util.Arrays.sort(perHandle);
        t.extra.put("open handles", open);
        t.extra.put("heap B/handle", Math.round(perHandle[1]));
        t.extra.put("bare spread B/thread", (high - low) / n);
    }

    /**
     * Heap used after a full GC while {@code n} threads are parked, and how many handles were open
     * then; with a pool, each thread tries to hold a handle.
     */
    private static long[] parked(int n, DataSource ds) throws Exception {
        AtomicInteger open = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    if (ds == null) {
                        release.await();
                        return;
                    }
                    try (Connection c = ds.getConnection()) {
                        P3SlowCall.query(c);
                        open.incrementAndGet();
                        release.await();
                        P3SlowCall.query(c);
                    }
                } catch (Exception e) {
                    // A HikariCP waiter that times out: it holds no handle, and the count says so.
                }
            }));
        }
        // Settled: every thread parked (at the latch, or in getConnection), twice in a row 100 ms apart.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int settled = 0;
        while (settled < 2 && System.nanoTime() < deadline) {
            Thread.sleep(100);
            boolean all = (ds == null || open.get() > 0) && threads.stream()
                    .allMatch(th -> th.getState() == Thread.State.WAITING || th.getState() == Thread.State.TIMED_WAITING);
            settled = all ? settled + 1 : 0;
        }
        System.gc();
        System.gc();
        long[] result = {ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), open.get()};
        release.countDown();
        for (Thread th : threads) {
            th.join();
        }
        return result;
    }
}
