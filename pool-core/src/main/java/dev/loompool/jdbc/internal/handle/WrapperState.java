package dev.loompool.jdbc.internal.handle;

/**
 * Whether a statement or result set wrapper may still be used. It closes once, by its own
 * {@code close()}, by the driver (a statement with {@code closeOnCompletion}), or quietly with its
 * handle or a broken connection; nothing reopens it.
 */
enum WrapperState {
    OPEN,
    CLOSED
}
