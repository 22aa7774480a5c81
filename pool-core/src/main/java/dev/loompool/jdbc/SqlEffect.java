package dev.loompool.jdbc;

/** What a SQL text does to the pins of the handle that runs it. */
enum SqlEffect {
    /** Nothing a later statement depends on. */
    NONE,
    /** Opens a transaction: {@code BEGIN}, {@code START TRANSACTION}. */
    BEGIN,
    /** Ends one: {@code COMMIT}, {@code ROLLBACK} (not {@code ROLLBACK TO}), {@code END}. */
    END,
    /** MySQL {@code SET autocommit=0}: a transaction, and a session setting the driver does not see. */
    AUTOCOMMIT_OFF,
    /** MySQL {@code SET autocommit=1}: commits, and changes the session back. */
    AUTOCOMMIT_ON,
    /** Leaves state on the session, which must be reset before anybody else gets the connection. */
    SESSION
}
