package dev.loompool.jdbc.internal;

/**
 * What a SQL text does to the pins of the handle that runs it, all its statements taken
 * together: whether it leaves state on the session, and how it leaves the transaction.
 */
enum SqlEffect {
    /** Nothing a later statement depends on. */
    NONE(false, Tx.SAME),
    /** Leaves a transaction open: {@code BEGIN}, {@code START TRANSACTION}, {@code COMMIT AND CHAIN}. */
    BEGIN(false, Tx.OPEN),
    /** Ends one: {@code COMMIT}, {@code ROLLBACK} (not {@code ROLLBACK TO}), {@code END}, {@code ABORT}. */
    END(false, Tx.ENDED),
    /** Leaves state on the session, which must be reset before anybody else gets the connection. */
    SESSION(true, Tx.SAME),
    /**
     * Session state and a transaction that may be open: MySQL {@code SET autocommit=0}, and SQL
     * whose effect cannot be known ({@code DO}, {@code CALL}, {@code XA}, {@code BEGIN NOT ATOMIC}).
     */
    SESSION_BEGIN(true, Tx.OPEN),
    /** MySQL {@code SET autocommit=1}: commits, and changes the session. */
    SESSION_END(true, Tx.ENDED);

    /** How a text leaves the transaction. */
    enum Tx {
        SAME,
        OPEN,
        ENDED
    }

    final boolean session;
    final Tx tx;

    SqlEffect(boolean session, Tx tx) {
        this.session = session;
        this.tx = tx;
    }

    static SqlEffect of(boolean session, Tx tx) {
        switch (tx) {
            case OPEN:
                return session ? SESSION_BEGIN : BEGIN;
            case ENDED:
                return session ? SESSION_END : END;
            default:
                return session ? SESSION : NONE;
        }
    }
}
