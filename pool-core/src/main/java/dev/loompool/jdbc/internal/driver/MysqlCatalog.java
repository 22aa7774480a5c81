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
 * trigger (its body may set a user variable: their name pins), and the tables an INSERT into sets no
 * {@code LAST_INSERT_ID()} in ({@link #TABLE_KEYS}), and those whose defaults take or read a sequence's
 * value ({@link #SEQUENCE_DEFAULTS}: their name pins). Five queries of
 * {@code information_schema}, at the pool's start and again when {@link SqlClassifier#refreshDue} says.
 */
final class MysqlCatalog {

    /**
     * Every table by name, and whether an INSERT into it may set {@code LAST_INSERT_ID()}: anything
     * but a base table (a view's INSERT reaches its base table; a MariaDB sequence), an
     * {@code AUTO_INCREMENT} column, or a default that takes a sequence's next value (MariaDB).
     * A trigger's name pins already, and never counts as quiet ({@link SqlFunctions#addQuietTables}).
     */
    private static final String TABLE_KEYS = "SELECT t.TABLE_NAME, t.TABLE_TYPE <> 'BASE TABLE' OR EXISTS (SELECT 1"
            + " FROM information_schema.COLUMNS k WHERE k.TABLE_SCHEMA = t.TABLE_SCHEMA AND k.TABLE_NAME = t.TABLE_NAME"
            + " AND (LOWER(k.EXTRA) LIKE '%auto_increment%' OR LOWER(k.COLUMN_DEFAULT) LIKE '%next%value%'"
            + " OR LOWER(k.COLUMN_DEFAULT) LIKE '%nextval%' OR LOWER(k.COLUMN_DEFAULT) LIKE '%last_insert_id%'))"
            + " FROM information_schema.TABLES t"
            + " WHERE t.TABLE_SCHEMA NOT IN ('sys', 'information_schema', 'performance_schema', 'mysql')";

    /**
     * MariaDB: the tables with a column default that takes or reads a sequence's value or the insert
     * id ({@code NEXT VALUE FOR s}, shown as {@code nextval(s)}; {@code PREVIOUS VALUE FOR s}, shown as
     * {@code lastval(s)}): their name is session state, as a text that names those is (a sequence's
     * value is kept per sequence until a session reset), so the connection is reset before another borrower.
     */
    private static final String SEQUENCE_DEFAULTS = "SELECT DISTINCT TABLE_NAME FROM information_schema.COLUMNS"
            + " WHERE TABLE_SCHEMA NOT IN ('sys', 'information_schema', 'performance_schema', 'mysql')"
            + " AND (LOWER(COLUMN_DEFAULT) LIKE '%nextval%' OR LOWER(COLUMN_DEFAULT) LIKE '%lastval%'"
            + " OR LOWER(COLUMN_DEFAULT) LIKE '%setval%' OR LOWER(COLUMN_DEFAULT) LIKE '%value%for%'"
            + " OR LOWER(COLUMN_DEFAULT) LIKE '%last_insert_id%')";

    private MysqlCatalog() {
    }

    static SqlFunctions read(Connection c) throws SQLException {
        Set<String> stored = new HashSet<>();
        Set<String> words = new HashSet<>();
        Map<String, List<String>> views = new HashMap<>();
        Map<String, Boolean> tableKeys = new HashMap<>();
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
            try (ResultSet rs = st.executeQuery(SEQUENCE_DEFAULTS)) {
                while (rs.next()) {
                    words.add(SqlLexer.foldAscii(rs.getString(1)));
                }
            }
            try (ResultSet rs = st.executeQuery(TABLE_KEYS)) {
                while (rs.next()) {
                    tableKeys.merge(rs.getString(1), rs.getBoolean(2), Boolean::logicalOr);
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
        table.addQuietTables(tableKeys, Map.of(), words, classifier);
        return table;
    }
}
