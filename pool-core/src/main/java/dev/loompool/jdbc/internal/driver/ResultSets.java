package dev.loompool.jdbc.internal.driver;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The result sets of one {@code execute} of several statements, in order: what lets the pool
 * send its reads of a new connection in one round trip (pgjdbc sends every statement of a text
 * before it waits for an answer). Results without rows ({@code BEGIN}, {@code ROLLBACK}) are
 * skipped; each result set is closed when the next is asked for.
 */
final class ResultSets {

    private final Statement st;
    private boolean started;

    /** {@code st} has just run its {@code execute}: its current result is the text's first. */
    ResultSets(Statement st) {
        this.st = st;
    }

    /** The next statement's rows; an error if the text has no more statements that return rows. */
    ResultSet next() throws SQLException {
        while (true) {
            if (started) {
                st.getMoreResults();
            }
            started = true;
            ResultSet rs = st.getResultSet();
            if (rs != null) {
                return rs;
            }
            if (st.getUpdateCount() == -1) {
                throw new SQLException("the catalog's text gave fewer result sets than it has queries");
            }
        }
    }
}
