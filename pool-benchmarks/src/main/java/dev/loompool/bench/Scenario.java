package dev.loompool.bench;

/** A timed workload, run once per pool per round. */
interface Scenario {

    String id();

    String title();

    /** What loompool is asked to reach, in words. */
    String target();

    Trial run(PoolKind pool, Mode mode) throws Exception;

    /** Whether errors in the measured window are a failure of the run (not so when they are the point). */
    default boolean errorsAreFailures() {
        return true;
    }
}
