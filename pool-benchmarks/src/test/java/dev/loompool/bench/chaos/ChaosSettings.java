package dev.loompool.bench.chaos;

import java.time.Duration;

/**
 * The knobs of the chaos suite, read from system properties ({@code -Dloompool.chaos.<name>=…} on the
 * Maven command line reaches the test JVM). The defaults keep the whole suite (cluster start, the
 * warm-up rounds and the measured ones) within about three minutes on a 2-core CI machine. The
 * names: {@code seconds} (40), {@code threads} (100), {@code maxSize} (10),
 * {@code acquireTimeoutMillis} (2000), {@code statementAllowanceMillis} (2000),
 * {@code killEveryMillis} (2000), {@code restartAtMillis} (3/8 of a round), {@code failurePauseMillis}
 * (10), {@code accounts} (1000), {@code assertBreaker} (true); and {@code pgBin}, PostgreSQL's bin
 * directory when it is not under /usr/lib/postgresql.
 *
 * @param runTime how long each pool is driven in all, in two rounds of half of it (see {@link #round()})
 * @param threads virtual threads issuing transfers
 * @param maxSize the pool size of both pools
 * @param acquireTimeout loompool's acquireTimeout, HikariCP's connectionTimeout
 * @param statementAllowance the "one statement" of the request-time bound, see {@link #requestBound()}
 * @param killEvery the period of {@code pg_terminate_backend} of a random client backend
 * @param restartAt when, in each round, the server is restarted ({@code pg_ctl restart -m fast}); past the
 *     round's end: never
 * @param failurePause what a worker sleeps after a failed transfer (at least 1 ms). Without it a
 *     fail-fast pool turns the workers into busy loops, and virtual threads are not time-sliced: a
 *     worker that never blocks keeps its carrier, so the others (woken waiters, the breaker's probe)
 *     are not scheduled for seconds and their request times measure the harness, not the pool
 * @param accounts rows of the bank
 * @param assertBreaker whether the suite asserts that the breaker never opens while the server accepts
 *     connections (on since issue 11: only failed connects open it)
 */
record ChaosSettings(Duration runTime, int threads, int maxSize, Duration acquireTimeout,
        Duration statementAllowance, Duration killEvery, Duration restartAt, Duration failurePause,
        int accounts, boolean assertBreaker) {

    static final String PREFIX = "loompool.chaos.";

    static ChaosSettings fromSystemProperties() {
        Duration runTime = Duration.ofSeconds(integer("seconds", 40));
        // Default: the restart falls at 3/8 of a round (7.5 s of 20), leaving time to recover after it.
        Duration restartAt = Duration.ofMillis(integer("restartAtMillis", (int) (runTime.toMillis() / 2 * 3 / 8)));
        return new ChaosSettings(runTime,
                integer("threads", 100),
                integer("maxSize", 10),
                Duration.ofMillis(integer("acquireTimeoutMillis", 2_000)),
                Duration.ofMillis(integer("statementAllowanceMillis", 2_000)),
                Duration.ofMillis(integer("killEveryMillis", 2_000)),
                restartAt,
                Duration.ofMillis(Math.max(1, integer("failurePauseMillis", 10))),
                integer("accounts", 1_000),
                Boolean.parseBoolean(System.getProperty(PREFIX + "assertBreaker", "true")));
    }

    /**
     * One round: half of a pool's run time. After one unmeasured round of each pool (the warm-up:
     * the JIT compiles the driver and both pools, fault paths included, before anything counts), the
     * pools run in the order loompool, HikariCP, HikariCP, loompool, each round on a fresh bank and
     * with its own fault schedule, so whatever drifts during the suite favours neither.
     */
    Duration round() {
        return runTime.dividedBy(2);
    }

    /**
     * The longest a request (one transfer, from getConnection to close) may take: the acquire timeout
     * plus one statement. A transfer is four round trips, each of which either answers in
     * milliseconds or fails fast on a killed backend or a stopped server; 2 s for all of them is
     * generous on a loaded 2-core machine, so only a request that really waited past its deadline
     * (a wait with no deadline, a connect nobody stopped waiting for) exceeds the bound.
     */
    Duration requestBound() {
        return acquireTimeout.plus(statementAllowance);
    }

    private static int integer(String name, int fallback) {
        String value = System.getProperty(PREFIX + name);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(PREFIX + name + " must be an integer, was '" + value + "'", e);
        }
    }

    @Override
    public String toString() {
        return threads + " virtual threads, maxSize " + maxSize + ", acquire timeout " + acquireTimeout.toMillis()
                + " ms, " + runTime.toSeconds() + " s per pool in two rounds of " + round().toMillis() / 1000.0
                + " s (order loompool, HikariCP, HikariCP, loompool) after an unmeasured round of each,"
                + " a backend killed every " + killEvery.toMillis()
                + " ms, restart at " + restartAt.toMillis() + " ms of each round, " + accounts + " accounts, pause after a failure "
                + failurePause.toMillis() + " ms";
    }
}
