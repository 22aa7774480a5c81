package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * What the write-path tests share ({@link PostgresGeneratedIdStaysWithItsBorrowerTest},
 * {@link MariaDbGeneratedIdStaysWithItsBorrowerTest} and their neighbours): B's steps, answered
 * beside a plain driver connection of B's own, and A's INSERT with its keys asked.
 */
final class WritePathProbes {

    /** What B's look answers when the pool refused it. */
    static final String REFUSED = "refused by the pool";

    private WritePathProbes() {
    }

    /** What B does and reads. */
    @FunctionalInterface
    interface Steps {
        String on(Connection c) throws SQLException;
    }

    /** The answer, the pool's refusal as {@link #REFUSED}, or a server's error as "ERR" and its SQLState. */
    static String answer(Steps steps, Connection c) {
        try {
            return steps.on(c);
        } catch (SQLException e) {
            boolean pool = "55000".equals(e.getSQLState()) && String.valueOf(e.getMessage()).contains("refused");
            return pool ? REFUSED : "ERR " + e.getSQLState();
        }
    }

    /** What {@code steps} answer on a fresh plain connection of {@code url}: B's own session. */
    static String plain(String url, Steps steps) throws SQLException {
        try (Connection c = DriverManager.getConnection(url)) {
            return answer(steps, c);
        }
    }

    static long keyed(Connection c, String sql) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS)) {
            ps.executeUpdate();
            try (ResultSet rs = ps.getGeneratedKeys()) {
                assertThat(rs.next()).as("a generated key").isTrue();
                return rs.getLong(1);
            }
        }
    }

    static boolean bound(Connection c) throws SQLException {
        return c.unwrap(LoomConnection.class).isBound();
    }
}
