package dev.loompool.bench.chaos;

import dev.loompool.testsupport.PgCluster;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fault schedule, the same for every pool: a random client backend killed every
 * {@code killEvery} from the first period on, and one {@code pg_ctl restart -m fast} at
 * {@code restartAt}. Faults run one after the other on one thread, so no kill lands while the
 * server restarts; kill slots a restart overran are skipped, not made up.
 */
final class Faults implements Runnable {

    private final PgCluster cluster;
    private final ChaosSettings settings;
    private final Timeline timeline;
    private final AtomicInteger kills = new AtomicInteger();
    private final Set<Integer> killed = ConcurrentHashMap.newKeySet();
    private final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
    private volatile boolean stop;

    Faults(PgCluster cluster, ChaosSettings settings, Timeline timeline) {
        this.cluster = cluster;
        this.settings = settings;
        this.timeline = timeline;
    }

    @Override
    public void run() {
        long period = settings.killEvery().toMillis();
        long restartAt = settings.restartAt().toMillis();
        long end = settings.round().toMillis();
        boolean restarted = restartAt >= end;
        long nextKill = period;
        while (!stop) {
            long next = restarted ? nextKill : Math.min(nextKill, restartAt);
            if (next >= end || !sleepUntil(next)) {
                return;
            }
            if (!restarted && next == restartAt) {
                restarted = true;
                restart();
            } else {
                kill();
            }
            long now = timeline.now();
            while (nextKill <= now) {
                nextKill += period;
            }
        }
    }

    private void restart() {
        timeline.record(Timeline.Kind.SERVER_DOWN, "server going down (pg_ctl restart -m fast)");
        try {
            cluster.restart();
            timeline.record(Timeline.Kind.SERVER_UP, "server up, accepting connections");
        } catch (Exception e) {
            errors.add("restart failed at " + timeline.now() + " ms: " + e.getMessage());
            timeline.record(Timeline.Kind.SERVER_UP, "restart FAILED: " + e.getMessage());
        }
    }

    private void kill() {
        try {
            int pid = cluster.terminateRandomClientBackend(Bank.DATABASE);
            if (pid > 0) {
                killed.add(pid);
                kills.incrementAndGet();
                timeline.record(Timeline.Kind.BACKEND_KILLED, "backend " + pid + " killed");
            } else {
                timeline.record(Timeline.Kind.BACKEND_KILLED, "no client backend to kill");
            }
        } catch (Exception e) {
            errors.add("kill failed at " + timeline.now() + " ms: " + e.getMessage());
        }
    }

    /** Sleeps until {@code atMillis} of the run; false if told to stop meanwhile. */
    private boolean sleepUntil(long atMillis) {
        long wait;
        while (!stop && (wait = atMillis - timeline.now()) > 0) {
            try {
                TimeUnit.MILLISECONDS.sleep(Math.min(wait, 100));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return !stop;
    }

    void stop() {
        stop = true;
    }

    int kills() {
        return kills.get();
    }

    /** The backends killed so far: dying, whatever the pool does, so the backend rule leaves them out. */
    Set<Integer> killedPids() {
        return killed;
    }

    List<String> errors() {
        return List.copyOf(errors);
    }
}
