package dev.loompool.jdbc.internal.sql;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;

/**
 * One text run on a fresh plain connection, between two fingerprints of its session: what the
 * server did with it, whatever the classifier says. An error from the server is an outcome like
 * any other (the text is then a failed statement, and a multi-statement text may have run its
 * first part), so it is recorded, not thrown.
 */
record ServerRun(List<String> changes, String error) {

    static ServerRun of(FuzzTarget target, String sql) throws SQLException {
        try (Connection c = target.open()) {
            Set<String> before = SessionFingerprint.of(c, target.dialect);
            String error = null;
            try (Statement s = c.createStatement()) {
                s.setQueryTimeout(10); // an advisory lock another backend still holds must not hang the run
                boolean results = s.execute(sql);
                // every result of a multi-statement text, so that the server has run (or refused) them all
                while (results || s.getUpdateCount() != -1) {
                    results = s.getMoreResults();
                }
            } catch (SQLException e) {
                error = e.getSQLState() + " " + e.getMessage();
            }
            if (c.isClosed() || !c.isValid(5)) {
                // the driver gave up on the session (pgjdbc closes a connection whose DateStyle or
                // client_encoding a statement changed): a pool destroys it, nobody inherits it
                return new ServerRun(List.of(), "connection closed after it: " + error);
            }
            return new ServerRun(SessionFingerprint.diff(before, SessionFingerprint.of(c, target.dialect)), error);
        }
    }

    boolean changed() {
        return !changes.isEmpty();
    }
}
