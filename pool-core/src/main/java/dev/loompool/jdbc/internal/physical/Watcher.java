package dev.loompool.jdbc.internal.physical;

/**
 * What a room above runs over a pool's connections and their holders (the reclaimer): made by
 * whoever makes the pool, and stopped by the pool as it closes, before its connections are closed.
 */
public interface Watcher {

    /**
     * How often it scans, in milliseconds. A handle its reclaim ended says so: nobody used it for a
     * whole period.
     */
    long PERIOD_MILLIS = 500;

    /** One scan now, as the periodic one would (for tests). */
    void scan();

    void stop();
}
