package dev.loompool.jdbc;

/**
 * What stands between the pool and the database (DESIGN.md §7). A server-side pooler in
 * transaction mode hands each transaction to whichever server connection is free, so nothing
 * that lives on a session survives from one transaction to the next.
 */
public enum ServerPooler {
    /** The pool talks to the database itself, or through a pooler in session mode. The default. */
    NONE,
    /**
     * PgBouncer (or a pooler that behaves like it) in transaction mode. The pool refuses SQL and
     * settings that leave state on the session, with an {@code SQLException} naming the statement
     * and this setting, never resets a session ({@code DISCARD ALL}: the pooler resets its own),
     * sends a handle's {@code setTransactionIsolation} as {@code SET TRANSACTION ISOLATION LEVEL}
     * at the start of each of its transactions instead of on the session, and makes pgjdbc send unnamed statements ({@code prepareThreshold=0}, unless the URL or the
     * properties set it: with PgBouncer 1.21 or later and {@code max_prepared_statements} set, a
     * positive threshold works).
     */
    PGBOUNCER_TRANSACTION
}
