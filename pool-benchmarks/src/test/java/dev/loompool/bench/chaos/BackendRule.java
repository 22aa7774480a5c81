package dev.loompool.bench.chaos;

/**
 * When the client backends on the server say that the pool lost track of a connection.
 *
 * <p>The pool's total is read just before and just after the server is asked, and the backends are
 * compared with the larger of the two: a connection opened or closed while the query runs is then on
 * the pool's side of the comparison. What can still be above it is the backend of a connection the
 * pool has just closed, whose server process has not exited yet (milliseconds), or of a backend
 * killed a moment ago. So one sample above the total is not a finding; an excess in
 * {@value #PERSISTENT} samples in a row (at least 400 ms at one sample every 200 ms) is: the pool
 * holds a physical connection open that it no longer counts. A sample the server could not answer
 * (it is restarting) breaks the run.
 */
final class BackendRule {

    static final int PERSISTENT = 3;

    private int excessInARow;

    /** One sample; true exactly when it completes a run of {@value #PERSISTENT} samples above the total. */
    boolean violatedBy(int backends, int totalBefore, int totalAfter) {
        if (backends <= Math.max(totalBefore, totalAfter)) {
            excessInARow = 0;
            return false;
        }
        return ++excessInARow == PERSISTENT;
    }

    /** The server did not answer: no sample, and the run of excess samples is over. */
    void unavailable() {
        excessInARow = 0;
    }
}
