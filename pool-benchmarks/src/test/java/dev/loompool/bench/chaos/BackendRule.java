package dev.loompool.bench.chaos;

/**
 * When the client backends on the server say that the pool lost track of a connection.
 *
 * <p>The pool's total is read just before and just after the server is asked, and the backends are
 * compared with the larger of the two: a connection opened or closed while the query runs is then on
 * the pool's side of the comparison. The backends the fault schedule killed are not counted: they
 * are dying, whatever the pool does. What can still be above the total is the backend of a
 * connection the pool has just closed, whose server process has not exited yet: milliseconds, or
 * longer when the machine is overloaded. So a moment above the total is not a finding; an excess
 * that lasts {@value #PERSISTENT_MILLIS} ms and at least {@value #PERSISTENT_SAMPLES} samples is: the
 * pool holds a physical connection open that it no longer counts. A sample the server could not
 * answer (it is restarting) ends the run of excess samples.
 */
final class BackendRule {

    static final int PERSISTENT_SAMPLES = 3;
    static final long PERSISTENT_MILLIS = 1_000;

    private int samplesInARow;
    private long since;
    private boolean reported;

    /**
     * One sample taken at {@code atMillis}; true exactly once per run of excess samples, when it has
     * lasted long enough to be a finding.
     */
    boolean violatedBy(long atMillis, int backends, int totalBefore, int totalAfter) {
        if (backends <= Math.max(totalBefore, totalAfter)) {
            unavailable();
            return false;
        }
        if (samplesInARow++ == 0) {
            since = atMillis;
        }
        if (!reported && samplesInARow >= PERSISTENT_SAMPLES && atMillis - since >= PERSISTENT_MILLIS) {
            reported = true;
            return true;
        }
        return false;
    }

    /** The server did not answer: no sample, and the run of excess samples is over. */
    void unavailable() {
        samplesInARow = 0;
        reported = false;
    }

    /** How long the current run of excess samples has lasted, for the report. */
    long excessMillis(long atMillis) {
        return samplesInARow == 0 ? 0 : atMillis - since;
    }
}
