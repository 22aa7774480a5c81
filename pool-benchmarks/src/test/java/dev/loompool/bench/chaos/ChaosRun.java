package dev.loompool.bench.chaos;

import dev.loompool.testsupport.PgCluster;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * One round of one pool: a fresh bank, the workers, the fault schedule and the watchers for the
 * round's time, then the quiesce (faults stopped, workers stopped and waited for) and what the pool and the
 * server say once everything is quiet, before and after the pool is closed.
 */
final class ChaosRun {

    /** What the pool and the server say after the load: the quiesce checks. */
    record Quiesce(PoolUnderTest.Counts counts, int openHandles, long finalSum, String finalSumError,
            int backends, int backendsAfterClose) {
    }

    /** Everything one run measured. */
    record Result(String label, boolean judged, long runMillis, Requests requests, Watchers watchers,
            Timeline timeline, int kills, List<String> faultErrors, int stuckWorkers, Quiesce quiesce) {
    }

    /** Opens the pool under test once the timeline exists (loompool reports its breaker moves to it). */
    interface PoolOpener {
        PoolUnderTest open(Timeline timeline) throws SQLException;
    }

    private final PgCluster cluster;
    private final Bank bank;
    private final ChaosSettings settings;

    ChaosRun(PgCluster cluster, Bank bank, ChaosSettings settings) {
        this.cluster = cluster;
        this.bank = bank;
        this.settings = settings;
    }

    /**
     * One round of the pool {@code opener} opens; {@code round} goes into its label (0: the warm-up,
     * which the suite runs the same way and then discards).
     */
    Result run(PoolOpener opener, int round) throws Exception {
        bank.reset();
        Timeline timeline = new Timeline();
        Requests requests = new Requests(settings.requestBound().toNanos());
        try (PoolUnderTest pool = opener.open(timeline)) {
            Faults faults = new Faults(cluster, settings, timeline);
            Watchers watchers = new Watchers(cluster, bank, pool, faults, timeline);
            watchers.start();
            Thread faultThread = Thread.ofPlatform().name("chaos-faults").daemon().start(faults);
            Worker workers = new Worker(pool.dataSource(), requests, timeline);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < settings.threads(); i++) {
                threads.add(Thread.ofVirtual().name("chaos-worker-" + i).start(workers));
            }
            TimeUnit.MILLISECONDS.sleep(Math.max(0, settings.round().toMillis() - timeline.now()));

            faults.stop();
            faultThread.join(120_000); // a restart under way finishes: the server is up for the quiesce
            workers.stop = true;
            int stuck = joinWorkers(threads, timeline);
            timeline.end();
            watchers.stop();
            long runMillis = timeline.endMillis();
            Quiesce quiesce = quiesce(pool);
            return new Result(pool.label() + " round " + round, pool.judged(), runMillis, requests, watchers, timeline, faults.kills(),
                    faults.errors(), stuck, quiesce);
        }
    }

    /** The workers get the request bound and 10 s more to finish; any still running then is stuck. */
    private int joinWorkers(List<Thread> threads, Timeline timeline) throws InterruptedException {
        long deadline = System.nanoTime() + settings.requestBound().toNanos() + TimeUnit.SECONDS.toNanos(10);
        int stuck = 0;
        for (Thread t : threads) {
            long wait = deadline - System.nanoTime();
            if (wait > 0) {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(wait)));
            }
            if (t.isAlive()) {
                stuck++;
                if (stuck <= 2) {
                    System.err.println(t.getName() + " still running at " + timeline.now() + " ms:\n  "
                            + String.join("\n  ", Arrays.stream(t.getStackTrace()).map(String::valueOf).toList()));
                }
                t.interrupt(); // a virtual thread blocked on a socket gets it closed, and ends
            }
        }
        return stuck;
    }

    private Quiesce quiesce(PoolUnderTest pool) throws InterruptedException {
        await(() -> pool.counts().inUse() == 0 && pool.openHandles() <= 0, 5_000);
        PoolUnderTest.Counts counts = pool.counts();
        int handles = pool.openHandles();
        long sum = -1;
        String sumError = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (sum < 0) {
            try {
                sum = bank.total();
            } catch (SQLException e) {
                sumError = e.getMessage();
                if (System.nanoTime() > deadline) {
                    break;
                }
                TimeUnit.MILLISECONDS.sleep(200);
            }
        }
        // Quiet now: a backend above the total can only be one that is still exiting, so wait a little.
        await(() -> backends() <= pool.counts().total(), 3_000);
        int backends = backends();
        pool.close();
        await(() -> backends() == 0, 5_000);
        return new Quiesce(counts, handles, sum, sum >= 0 ? null : sumError, backends, backends());
    }

    private int backends() {
        try {
            return cluster.clientBackends(Bank.DATABASE, Set.of());
        } catch (SQLException e) {
            return -1;
        }
    }

    private static void await(BooleanSupplier condition, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    /** The loop every worker thread runs: transfer, record, and after a failure pause a little. */
    private final class Worker implements Runnable {
        private final DataSource ds;
        private final Requests requests;
        private final Timeline timeline;
        volatile boolean stop;

        Worker(DataSource ds, Requests requests, Timeline timeline) {
            this.ds = ds;
            this.requests = requests;
            this.timeline = timeline;
        }

        @Override
        public void run() {
            while (!stop) {
                long start = System.nanoTime();
                Throwable error = null;
                try {
                    bank.transfer(ds);
                } catch (SQLException | RuntimeException e) {
                    error = e;
                }
                requests.record(timeline.now(), System.nanoTime() - start, error);
                if (error != null) {
                    try {
                        TimeUnit.NANOSECONDS.sleep(settings.failurePause().toNanos());
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }
    }
}
