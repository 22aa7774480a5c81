package dev.loompool;

/** The pool was closed before, or while, the caller waited for a resource. */
public class PoolClosedException extends PoolException {

    private static final long serialVersionUID = 1L;

    public PoolClosedException(String message) {
        super(message);
    }
}
