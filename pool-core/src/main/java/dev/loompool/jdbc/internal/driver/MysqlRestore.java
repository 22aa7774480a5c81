package dev.loompool.jdbc.internal.driver;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MySQL's and MariaDB's restore ({@link SessionReset}): the statement that puts back, after
 * COM_RESET_CONNECTION, the session variables the driver set at connect, read as those whose
 * session value is not the global one.
 */
final class MysqlRestore {

    /** SessionReset's: its lines stay under the logger they were always written to. */
    private static final Logger log = LoggerFactory.getLogger(SessionReset.class);

    private MysqlRestore() {
    }

    /** {@code SET SESSION} of every variable the driver set to something else than the server's global value. */
    static String of(Connection raw) {
        Map<String, String> set = Map.of();
        for (String schema : new String[] {"information_schema", "performance_schema"}) {
            try {
                set = SessionReset.read(raw, differingVariables(schema));
                break;
            } catch (SQLException e) {
                log.debug("session variables not readable from {}", schema, e);
            }
        }
        return of(raw, set);
    }

    /** The session's variables whose value is not the global one: name, value. */
    static String differingVariables(String schema) {
        return "SELECT s.variable_name, s.variable_value FROM " + schema + ".session_variables s JOIN "
                + schema + ".global_variables g ON g.variable_name = s.variable_name "
                + "WHERE NOT (s.variable_value <=> g.variable_value)";
    }

    /** {@code SET SESSION} of {@code set}, the variables {@link #differingVariables} found; null if none. */
    static String of(Connection raw, Map<String, String> set) {
        List<String> assignments = new ArrayList<>();
        set.forEach((name, value) -> assignments.add(name.toLowerCase(Locale.ROOT) + " = "
                + (value == null ? "DEFAULT" : value.isEmpty() ? emptyOrNull(raw, name)
                        : value.matches("-?\\d+(\\.\\d+)?") ? value : SessionReset.literal(value, true))));
        return assignments.isEmpty() ? null : "SET SESSION " + String.join(", ", assignments);
    }

    /**
     * MariaDB Connector/J keeps the isolation level it last set, or heard of through the session
     * tracking it turns on, and answers {@code getTransactionIsolation} and skips a
     * {@code setTransactionIsolation} to that level from memory. COM_RESET_CONNECTION puts the
     * server's level back to the global one without a word to it, so the pool's default level
     * (set at connect) was not set again after a reset: the next borrower ran at the server's
     * default while the pool said otherwise (found by the pool's sequence fuzzer). Setting the
     * session's level to the global one at the end of the restore, once the tracking is back, tells
     * the driver the level it has. No round trip is added: it is the same statement.
     */
    static String withIsolationTold(Connection raw, String restore) {
        String tracked;
        try (Statement st = raw.createStatement(); ResultSet rs = st.executeQuery("SELECT @@SESSION.session_track_system_variables")) {
            tracked = rs.next() && rs.getString(1) != null ? rs.getString(1) : "";
        } catch (SQLException e) {
            return restore; // no session tracking: the driver asks the server, and knows no level of its own
        }
        return told(restore, tracked);
    }

    /** {@code restore}, ending with the isolation told to the driver if the session tracks it ({@code tracked}: the list). */
    static String told(String restore, String tracked) {
        String list = "," + tracked.toLowerCase(Locale.ROOT) + ",";
        for (String name : new String[] {"transaction_isolation", "tx_isolation"}) { // MariaDB 11.1 renamed it
            if (list.contains("," + name + ",")) {
                String told = name + " = @@GLOBAL." + name;
                return restore == null ? "SET SESSION " + told : restore + ", " + told;
            }
        }
        return restore;
    }

    /**
     * The tables show a NULL as '' too: MySQL Connector/J sets {@code character_set_results = NULL}
     * at connect, and the server refuses it back as '' (an unknown character set), which left
     * every connection with session state closed instead of reset (found by the driver matrix).
     */
    private static String emptyOrNull(Connection raw, String name) {
        if (!name.matches("[A-Za-z0-9_]+")) {
            return "''";
        }
        try (Statement st = raw.createStatement(); ResultSet rs = st.executeQuery("SELECT @@SESSION." + name + " IS NULL")) {
            return rs.next() && rs.getBoolean(1) ? "NULL" : "''";
        } catch (SQLException e) {
            return "''";
        }
    }
}
