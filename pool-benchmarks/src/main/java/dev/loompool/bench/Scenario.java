package dev.loompool.bench;

import java.util.List;

/** A timed workload, run once per pool per round. */
interface Scenario {

    String id();

    /** The name {@code --only} selects it by: its id, or its family's (P10's variants are one). */
    default String group() {
        return id();
    }

    String title();

    /** What loompool is asked to reach, in words. */
    String target();

    Trial run(PoolKind pool, Mode mode) throws Exception;

    /** The pools it compares, loompool and HikariCP among them (the verdicts need both). */
    default List<PoolKind> pools() {
        return List.of(PoolKind.values());
    }

    /**
     * Whether reconnecting is the scenario's point (an outage): its connection churn is reported,
     * not judged ({@link Churn}).
     */
    default boolean reconnects() {
        return false;
    }

    /** Whether errors in the measured window are a failure of the run (not so when they are the point). */
    default boolean errorsAreFailures() {
        return true;
    }

    /** The errors of a trial that fail the run. */
    default long failures(Trial t) {
        return errorsAreFailures() ? t.errors : 0;
    }
}
