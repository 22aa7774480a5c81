package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Driver-side state that no session reset reaches: pgjdbc's autosave and SQL run on the unwrapped
 * driver connection (so a connection whose driver object was handed out is closed, not reused), the
 * client-side type map and client info, and notifications already in pgjdbc's buffer. B must not
 * inherit any of A's.
 */
class DriverSideStateAfterTheResetTest extends OnRealDatabases {

    /** Driver-side state set through unwrap() survives the reset: pgjdbc autosave changes what B commits. */
    @Test
    void pgDriverSideAutosaveLeaksAndChangesWhatBCommits() throws SQLException {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        pgAThenNewB(ds, "a connection whose driver object was handed out is closed, not reused", a -> {
            a.unwrap(org.postgresql.PGConnection.class).setAutosave(org.postgresql.jdbc.AutoSave.ALWAYS);
        }, b -> {
            b.setAutoCommit(false);
            run(b, "INSERT INTO " + table + " VALUES (1)");
            assertThatThrownBy(() -> run(b, "INSERT INTO " + table + " VALUES (1)")).isInstanceOf(SQLException.class);
            try {
                run(b, "INSERT INTO " + table + " VALUES (2)"); // fresh pgjdbc: 25P02 transaction is aborted
            } catch (SQLException expected) {
                // as with a fresh connection
            }
            try {
                b.commit();
            } catch (SQLException expected) {
                // pgjdbc reports the rolled-back commit
            }
        });
        assertThat(pgRows()).as("fresh pgjdbc: the aborted transaction commits nothing").isZero();
    }

    /** SQL run on the unwrapped driver connection bypasses the classifier: explicit pin, but no reset. */
    @Test
    void pgSqlThroughTheUnwrappedConnectionLeaksItsSessionState() throws SQLException {
        LoomPoolDataSource ds = pg(1);
        pgAThenNewB(ds, "a connection whose driver object was handed out is closed, not reused", a -> {
            Connection raw = (Connection) a.unwrap(org.postgresql.PGConnection.class);
            run(raw, "SET search_path TO evil_schema");
            run(raw, "SELECT pg_advisory_lock(515151)");
        }, b -> {
            assertThat(str(b, "SHOW search_path") + " / locks "
                    + num(b, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 515151"))
                    .isEqualTo("\"$user\", public / locks 0");
        });
    }

    /** Client-side typeMap (pgjdbc) and client info (MariaDB) are not wiped by the session reset. */
    @Test
    void clientSideConnectionStateLeaks() throws SQLException {
        LoomPoolDataSource ds = pg(1);
        try (Connection a = ds.getConnection()) {
            a.setTypeMap(new java.util.HashMap<>(java.util.Map.of("atk_type", String.class)));
        }
        List<String> failures = new ArrayList<>();
        try (Connection b = ds.getConnection()) {
            if (!b.getTypeMap().isEmpty()) {
                failures.add("pg typeMap " + b.getTypeMap());
            }
        }
        LoomPoolDataSource m = maria(1);
        try (Connection a = m.getConnection()) {
            a.setClientInfo("ClientUser", "alice-secret");
        }
        try (Connection b = m.getConnection()) {
            if (b.getClientInfo("ClientUser") != null) {
                failures.add("maria clientInfo ClientUser=" + b.getClientInfo("ClientUser"));
            }
        }
        assertThat(failures).isEmpty();
    }

    /** Notifications that reached pgjdbc's buffer before the reset are handed to B. */
    @Test
    void pgNotificationsForAAreDeliveredToB() throws SQLException {
        LoomPoolDataSource ds = pg(1);
        pgAThenB(ds, a -> {
            run(a, "LISTEN atk_chan");
            pgAdmin("NOTIFY atk_chan, 'payload-for-A-only'");
            num(a, "SELECT 1"); // the notification arrives with this reply
        }, b -> {
            org.postgresql.PGNotification[] n = b.unwrap(org.postgresql.PGConnection.class).getNotifications();
            assertThat(n == null ? List.of() : List.of(n).stream().map(x -> x.getParameter()).toList())
                    .as("B receives A's notification").isEmpty();
        });
    }
}
