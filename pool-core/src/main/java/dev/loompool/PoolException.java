package dev.loompool;

/**
 * The base of every exception a pool throws. A factory failure during acquire arrives as a plain
 * {@code PoolException} whose cause is the factory's exception.
 */
public class PoolException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public PoolException(String message) {
        super(message);
    }

    public PoolException(String message, Throwable cause) {
        super(message, cause);
    }
}
