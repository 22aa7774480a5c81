package dev.loompool.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loompool.testsupport.PgBouncer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * Behind PgBouncer in transaction mode (DESIGN.md §7; issue 30), the pool's idea of "the default"
 * isolation must not be one server connection's, read once: a level another client of the bouncer
 * left on a server connection does not make the level a handle asks silent, in a transaction or in
 * autocommit mode.
 */
class PgBouncerDefaultLevelIsNotReadFromALeakedSessionTest extends PgBouncerLevelLedger {

    /**
     * Another client of the same PgBouncer (a service on a plain pool: pgjdbc's own
     * setTransactionIsolation) left SET SESSION CHARACTERISTICS … SERIALIZABLE on server connection
     * S1. The pool makes its connection while S1 is the only one, and takes SERIALIZABLE for the
     * default. A asks SERIALIZABLE: the pool sends nothing, and A's transaction runs on S2, which
     * PgBouncer opens while S1 is busy, at READ COMMITTED.
     */
    @Test
    void aDefaultReadFromALeakedSessionMakesTheAskedLevelSilent() throws Exception {
        try (PgBouncer pair = PgBouncer.start(host, port, db, 2);
                Connection leaker = DriverManager.getConnection(pair.jdbcUrl("prepareThreshold=0"))) {
            leaker.setTransactionIsolation(SER); // SET SESSION CHARACTERISTICS on S1, the only server connection
            String s1 = one(leaker, "SELECT pg_backend_pid()");
            try (LoomPoolDataSource ds = pool(pair, "")) {
                try (Connection warm = ds.getConnection()) {
                    warm.isValid(5); // the pool's first physical connection: its defaults read on S1
                }
                try (Connection busy = DriverManager.getConnection(pair.jdbcUrl("prepareThreshold=0"));
                        Connection a = ds.getConnection()) {
                    busy.setAutoCommit(false);
                    assertEquals(s1, one(busy, "SELECT pg_backend_pid()"), "busy holds S1");
                    // What Spring's DataSourceUtils reads before it decides to call setTransactionIsolation
                    assertEquals(Connection.TRANSACTION_READ_COMMITTED, a.getTransactionIsolation(),
                            "the default a fresh handle reports: the role's, not the one left on S1");
                    a.setTransactionIsolation(SER);
                    a.setAutoCommit(false);
                    String pid = one(a, "SELECT pg_backend_pid()");
                    assertTrue(!pid.equals(s1), "A runs on S2");
                    assertEquals("serializable", one(a, "SHOW transaction_isolation"),
                            "A asked SERIALIZABLE; the server connection it ran on has READ COMMITTED");
                    a.rollback();
                    busy.rollback();
                }
            }
        }
    }

    /** The same leak: in autocommit mode A's SERIALIZABLE statement must be refused, not run weaker. */
    @Test
    void aDefaultReadFromALeakedSessionLetsAutocommitRunWeaker() throws Exception {
        try (PgBouncer pair = PgBouncer.start(host, port, db, 2);
                Connection leaker = DriverManager.getConnection(pair.jdbcUrl("prepareThreshold=0"))) {
            leaker.setTransactionIsolation(SER);
            String s1 = one(leaker, "SELECT pg_backend_pid()");
            try (LoomPoolDataSource ds = pool(pair, "")) {
                try (Connection warm = ds.getConnection()) {
                    warm.isValid(5);
                }
                try (Connection busy = DriverManager.getConnection(pair.jdbcUrl("prepareThreshold=0"));
                        Connection a = ds.getConnection()) {
                    busy.setAutoCommit(false);
                    assertEquals(s1, one(busy, "SELECT pg_backend_pid()"));
                    a.setTransactionIsolation(SER);
                    String seen;
                    try {
                        seen = one(a, "SHOW transaction_isolation");
                    } catch (SQLException refused) {
                        seen = "refused " + refused.getSQLState();
                    }
                    assertTrue(seen.equals("serializable") || seen.equals("refused 0A000"),
                            "A's autocommit statement at SERIALIZABLE ran at " + seen);
                    busy.rollback();
                }
            }
        }
    }
}
