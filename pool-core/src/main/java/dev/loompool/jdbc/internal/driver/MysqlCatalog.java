package dev.loompool.jdbc.internal.driver;

import dev.loompool.jdbc.internal.sql.SqlClassifier;
import dev.loompool.jdbc.internal.sql.SqlDialect;
import dev.loompool.jdbc.internal.sql.SqlFunctions;
import dev.loompool.jdbc.internal.sql.SqlLexer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads what MySQL and MariaDB run without the text naming it ({@link SqlFunctions}): the stored
 * functions of every database (a name the server resolves to one is never neutral, even one named
 * like a builtin of another server or version), every view's definition (classified as SQL: one
 * that calls a stored function or {@code GET_LOCK} makes its name pin) and the tables with a
 * trigger (its body may set a user variable: their name pins). Three queries of
 * {@code information_schema}, at the pool's start and again when {@link SqlClassifier#refreshDue} says.
 */
final class MysqlCatalog {

    private MysqlCatalog() {
    }

    static SqlFunctions read(Connection c) throws SQLException {
        Set<String> stored = new HashSet<>();
        Set<String> words = new HashSet<>();
        Map<String, List<String>> views = new HashMap<>();
        try (Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("SELECT ROUTINE_NAME FROM information_schema.ROUTINES"
                    + " WHERE ROUTINE_TYPE = 'FUNCTION'")) {
                while (rs.next()) {
                    stored.add(rs.getString(1));
                }
            }
            try (ResultSet rs = st.executeQuery("SELECT DISTINCT EVENT_OBJECT_TABLE FROM information_schema.TRIGGERS")) {
                while (rs.next()) {
                    words.add(SqlLexer.foldAscii(rs.getString(1)));
                }
            }
            try (ResultSet rs = st.executeQuery("SELECT TABLE_NAME, VIEW_DEFINITION FROM information_schema.VIEWS"
                    + " WHERE TABLE_SCHEMA NOT IN ('sys', 'information_schema', 'performance_schema', 'mysql')")) {
                while (rs.next()) {
                    String definition = rs.getString(2);
                    if (definition == null || definition.isEmpty()) {
                        words.add(SqlLexer.foldAscii(rs.getString(1))); // not shown to this user: unknown
                    } else {
                        views.put(SqlLexer.foldAscii(rs.getString(1)), List.of(definition));
                    }
                }
            }
        }
        if (!c.getAutoCommit()) {
            c.rollback();
        }
        SqlFunctions table = SqlFunctions.mysql(stored, words);
        SqlClassifier classifier = new SqlClassifier(SqlDialect.MYSQL);
        classifier.useFunctions(table, 0);
        SqlFunctions.addUnneutral(views, words, classifier, e -> e.session);
        return table;
    }
}
