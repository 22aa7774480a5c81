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
 * {@code information_schema} sent as one ({@link #ROWS}), at the pool's start and again when {@link SqlClassifier#refreshDue} says.
 */
final class MysqlCatalog {

    /**
     * Every table by name, and whether an INSERT into it may set {@code LAST_INSERT_ID()}: anything
     * but a base table (a view's INSERT reaches its base table; a MariaDB sequence), an
     * {@code AUTO_INCREMENT} column, or a default that takes a sequence's next value (MariaDB).
     * A trigger's name pins already, and never counts as quiet ({@link SqlFunctions#addQuietTables}).
     */
    private static final String TABLE_KEYS = "SELECT 'K', t.TABLE_NAME, IF(t.TABLE_TYPE <> 'BASE TABLE' OR EXISTS (SELECT 1"
            + " FROM information_schema.COLUMNS k WHERE k.TABLE_SCHEMA = t.TABLE_SCHEMA AND k.TABLE_NAME = t.TABLE_NAME"
            + " AND (LOWER(k.EXTRA) LIKE '%auto_increment%' OR LOWER(k.COLUMN_DEFAULT) LIKE '%next%value%'"
            + " OR LOWER(k.COLUMN_DEFAULT) LIKE '%nextval%' OR LOWER(k.COLUMN_DEFAULT) LIKE '%last_insert_id%')), 'y', 'n')"
            + " FROM information_schema.TABLES t"
            + " WHERE t.TABLE_SCHEMA NOT IN ('sys', 'information_schema', 'performance_schema', 'mysql')";

    /**
     * MariaDB: the tables with a column default that takes or reads a sequence's value or the insert
     * id ({@code NEXT VALUE FOR s}, shown as {@code nextval(s)}; {@code PREVIOUS VALUE FOR s}, shown as
     * {@code lastval(s)}): their name is session state, as a text that names those is (a sequence's
     * value is kept per sequence until a session reset), so the connection is reset before another borrower.
     */
    private static final String SEQUENCE_DEFAULTS = "SELECT DISTINCT 'S', TABLE_NAME, NULL FROM information_schema.COLUMNS"
            + " WHERE TABLE_SCHEMA NOT IN ('sys', 'information_schema', 'performance_schema', 'mysql')"
            + " AND (LOWER(COLUMN_DEFAULT) LIKE '%nextval%' OR LOWER(COLUMN_DEFAULT) LIKE '%lastval%'"
            + " OR LOWER(COLUMN_DEFAULT) LIKE '%setval%' OR LOWER(COLUMN_DEFAULT) LIKE '%value%for%'"
            + " OR LOWER(COLUMN_DEFAULT) LIKE '%last_insert_id%')";

    private MysqlCatalog() {
    }

    /**
     * The five queries as one, rows of (kind, name, value), the view's definition first so that it
     * gives the value column its type: one round trip (issue 39: it was five). {@link SessionProbe}
     * adds its own rows to it on a pool's first connection.
     */
    static final String ROWS = "SELECT 'V', TABLE_NAME, VIEW_DEFINITION FROM information_schema.VIEWS"
            + " WHERE TABLE_SCHEMA NOT IN ('sys', 'information_schema', 'performance_schema', 'mysql')"
            + " UNION ALL SELECT 'F', ROUTINE_NAME, NULL FROM information_schema.ROUTINES WHERE ROUTINE_TYPE = 'FUNCTION'"
            + " UNION ALL SELECT DISTINCT 'T', EVENT_OBJECT_TABLE, NULL FROM information_schema.TRIGGERS"
            + " UNION ALL " + SEQUENCE_DEFAULTS + " UNION ALL " + TABLE_KEYS;

    /** What {@link #ROWS} says, row by row. */
    static final class Rows {
        private final Set<String> stored = new HashSet<>();
        private final Set<String> words = new HashSet<>();
        private final Map<String, List<String>> views = new HashMap<>();
        private final Map<String, Boolean> tableKeys = new HashMap<>();

        /** A row of {@link #ROWS}; false for a kind it does not have (another query's row in the same result). */
        boolean add(String kind, String name, String value) {
            switch (kind) {
                case "F" -> stored.add(name);
                case "T", "S" -> words.add(SqlLexer.foldAscii(name));
                case "V" -> {
                    if (value == null || value.isEmpty()) {
                        words.add(SqlLexer.foldAscii(name)); // not shown to this user: unknown
                    } else {
                        views.put(SqlLexer.foldAscii(name), List.of(value));
                    }
                }
                case "K" -> tableKeys.merge(name, "y".equals(value), Boolean::logicalOr);
                default -> {
                    return false;
                }
            }
            return true;
        }

        SqlFunctions table() {
            SqlFunctions table = SqlFunctions.mysql(stored, words);
            SqlClassifier classifier = new SqlClassifier(SqlDialect.MYSQL);
            classifier.useFunctions(table, 0);
            SqlFunctions.addUnneutral(views, words, classifier, e -> e.session);
            table.addQuietTables(tableKeys, Map.of(), words, classifier);
            return table;
        }
    }

    static SqlFunctions read(Connection c) throws SQLException {
        Rows rows = new Rows();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(ROWS)) {
            while (rs.next()) {
                rows.add(rs.getString(1), rs.getString(2), rs.getString(3));
            }
        }
        if (!c.getAutoCommit()) {
            c.rollback();
        }
        return rows.table();
    }
}
