package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * From a review attack (issue 26): MariaDB Connector/J answers {@code Statement.getWarnings()} (and a result
 * set's) from its connection, with {@code SHOW WARNINGS}, even once the statement is closed. A
 * closed statement no longer pins, so the pool has lent its connection to B meanwhile: A's call
 * runs on B's connection and reads B's warnings, or clears them.
 */
class ClosedStatementWarningsTest extends OnRealDatabases {

    private static String text(SQLWarning w) {
        StringBuilder out = new StringBuilder();
        for (; w != null; w = w.getNextWarning()) {
            out.append(w.getMessage()).append('\n');
        }
        return out.toString();
    }

    @Test
    void aClosedStatementsWarningsAreNeverTheNextBorrowersWarnings() throws SQLException {
        String secretA = "secret-of-A-" + tag;
        String secretB = "secret-of-B-" + tag;
        String plain;
        try (Connection c = TestDatabase.MARIADB.admin()) {
            Statement st = c.createStatement();
            st.execute("SELECT '" + secretA + "' + 0");
            st.close();
            plain = text(st.getWarnings());
        }
        assertThat(plain).as("plain driver: the connection's warnings, A's").contains(secretA);
        LoomPoolDataSource ds = maria(1);
        try (Connection a = ds.getConnection(); Connection b = ds.getConnection()) {
            Statement st = a.createStatement();
            st.execute("SELECT '" + secretA + "' + 0");
            st.close(); // A's handle holds nothing now
            b.setAutoCommit(false);
            run(b, "SELECT '" + secretB + "' + 0"); // B holds A's former connection, in its transaction
            String seen;
            try {
                seen = text(st.getWarnings());
            } catch (SQLException refused) {
                return;
            }
            assertThat(seen).as("what A's closed statement reports").doesNotContain(secretB);
            b.rollback();
        }
    }

    @Test
    void aClosedResultSetsWarningsAreNeverTheNextBorrowersWarnings() throws SQLException {
        String secretB = "secret-of-B-" + tag;
        LoomPoolDataSource ds = maria(1);
        try (Connection a = ds.getConnection(); Connection b = ds.getConnection()) {
            ResultSet rs;
            try (Statement st = a.createStatement()) {
                rs = st.executeQuery("SELECT 1");
                rs.close();
            }
            b.setAutoCommit(false);
            run(b, "SELECT '" + secretB + "' + 0");
            String seen;
            try {
                seen = text(rs.getWarnings());
            } catch (SQLException refused) {
                return;
            }
            assertThat(seen).as("what A's closed result set reports").doesNotContain(secretB);
            b.rollback();
        }
    }

    @Test
    void aClosedStatementsClearWarningsNeverClearsTheNextBorrowersWarnings() throws SQLException {
        String secretB = "secret-of-B-" + tag;
        LoomPoolDataSource ds = maria(1);
        try (Connection a = ds.getConnection(); Connection b = ds.getConnection()) {
            Statement st = a.createStatement();
            st.execute("SELECT 1");
            st.close();
            b.setAutoCommit(false);
            try (Statement bs = b.createStatement()) {
                bs.execute("SELECT '" + secretB + "' + 0");
                try {
                    st.clearWarnings();
                } catch (SQLException refused) {
                    // refused: nothing reached B's connection
                }
                assertThat(text(bs.getWarnings())).as("B's own warning, as on the plain driver").contains(secretB);
            }
            b.rollback();
        }
    }
}
