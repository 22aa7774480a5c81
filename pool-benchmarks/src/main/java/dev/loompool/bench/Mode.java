package dev.loompool.bench;

import java.time.Duration;

/** How long each part runs: {@code quick} is a smoke test (under 2 minutes), {@code full} is what BENCHMARKS.md reports. */
enum Mode {
    QUICK(Duration.ofMillis(500), Duration.ofMillis(1500), 1, 1, 1, 1, 300, false),
    FULL(Duration.ofSeconds(2), Duration.ofSeconds(8), 3, 2, 8, 5, 1000, true);

    /** Timed scenarios: warm-up (not recorded), then the measured window, per trial. */
    final Duration warmup;
    final Duration measure;
    /** Timed scenarios: trials per pool, the pools alternating round by round. */
    final int rounds;
    /** JMH (P1): forks per pool, the pools taking turns fork by fork. */
    final int jmhRounds;
    /** JMH: warm-up and measurement iterations, and each iteration's length in ms. */
    final int jmhWarmups;
    final int jmhIterations;
    final int jmhIterationMillis;
    final boolean jmhFork;

    Mode(Duration warmup, Duration measure, int rounds, int jmhRounds, int jmhWarmups, int jmhIterations, int jmhIterationMillis,
            boolean jmhFork) {
        this.warmup = warmup;
        this.measure = measure;
        this.rounds = rounds;
        this.jmhRounds = jmhRounds;
        this.jmhWarmups = jmhWarmups;
        this.jmhIterations = jmhIterations;
        this.jmhIterationMillis = jmhIterationMillis;
        this.jmhFork = jmhFork;
    }
}
