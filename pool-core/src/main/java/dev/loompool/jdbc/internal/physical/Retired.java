package dev.loompool.jdbc.internal.physical;

/**
 * Thrown by the release check to drop a connection that is healthy but done (max lifetime
 * reached, or session state that cannot be reset). The pool's breaker strategy ignores it: a
 * retirement is not a sign that the database is failing. No stack trace: it is control flow.
 */
final class Retired extends Exception {

    private static final long serialVersionUID = 1L;

    Retired(String why) {
        super(why, null, false, false);
    }
}
