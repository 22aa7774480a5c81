package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The catalog read in the round trip of the first connection's session probe on MariaDB, through
 * both Connector/Js (DESIGN.md §4, "Classifying SQL: an allowlist"; issue 39): the first borrower's
 * session is in no transaction, and views (a long definition read whole), triggers and
 * AUTO_INCREMENT pin as the catalog says, also for a user who may see little of it. PostgreSQL:
 * {@link PostgresFirstConnectionClassifiesAsTheCatalogSaysTest}.
 */
@Timeout(180)
class MariaDbFirstConnectionClassifiesAsTheCatalogSaysTest extends OnRealDatabases {

    private String mariaObjects() throws SQLException {
        String f = "fcat_set_" + tag;
        mariaCleanup.add("DROP VIEW IF EXISTS fcat_v_" + tag);
        mariaCleanup.add("DROP VIEW IF EXISTS fcat_lv_" + tag);
        mariaCleanup.add("DROP FUNCTION IF EXISTS " + f);
        mariaCleanup.add("DROP TABLE IF EXISTS fcat_trg_" + tag);
        mariaCleanup.add("DROP TABLE IF EXISTS fcat_ai_" + tag);
        mariaCleanup.add("DROP TABLE IF EXISTS fcat_quiet_" + tag);
        mariaAdmin("CREATE FUNCTION " + f + "() RETURNS INT NOT DETERMINISTIC BEGIN SET @fcat_leak = 1; RETURN 1; END");
        mariaAdmin("CREATE VIEW fcat_v_" + tag + " AS SELECT " + f + "() AS x");
        // a definition longer than the probe's own rows' values (VARCHAR(4096)): the call at its end must not be cut off
        mariaAdmin("CREATE VIEW fcat_lv_" + tag + " AS SELECT '" + "p".repeat(9000) + "' AS pad, " + f + "() AS x");
        mariaAdmin("CREATE TABLE fcat_trg_" + tag + " (id int PRIMARY KEY, v int)");
        mariaAdmin("CREATE TRIGGER fcat_trg_t_" + tag + " BEFORE INSERT ON fcat_trg_" + tag
                + " FOR EACH ROW SET @fcat_trig = NEW.v");
        mariaAdmin("CREATE TABLE fcat_ai_" + tag + " (id bigint AUTO_INCREMENT PRIMARY KEY, v int)");
        mariaAdmin("CREATE TABLE fcat_quiet_" + tag + " (id bigint PRIMARY KEY, v int)");
        return f;
    }

    @ParameterizedTest
    @EnumSource(Connector.class)
    void mariaTheFirstConnectionClassifiesViewsTriggersAndKeysAsTheCatalogSays(Connector connector) throws Exception {
        mariaObjects();
        LoomPoolDataSource ds = maria(connector, 1, null);
        try (Connection first = ds.getConnection()) {
            assertThat(num(first, "SELECT @@in_transaction")).as("no transaction left open by the read").isZero();
            str(first, "SELECT LOWER('A')");
            assertThat(first.unwrap(LoomConnection.class).pinReasons()).isEmpty();
            num(first, "SELECT x FROM fcat_v_" + tag);
            assertThat(first.unwrap(LoomConnection.class).pinReasons()).as("a view over a stored function")
                    .contains(PinReason.SESSION_STATE);
        }
        try (Connection c = ds.getConnection()) {
            num(c, "SELECT x FROM fcat_lv_" + tag);
            assertThat(c.unwrap(LoomConnection.class).pinReasons()).as("a long view's definition, read whole")
                    .contains(PinReason.SESSION_STATE);
        }
        try (Connection c = ds.getConnection()) {
            run(c, "INSERT INTO fcat_trg_" + tag + " (id, v) VALUES (1, 7)");
            assertThat(c.unwrap(LoomConnection.class).pinReasons()).as("a table with a trigger")
                    .contains(PinReason.SESSION_STATE);
        }
        try (Connection c = ds.getConnection()) {
            run(c, "INSERT INTO fcat_ai_" + tag + " (v) VALUES (1)");
            assertThat(c.unwrap(LoomConnection.class).pinReasons()).as("a table with AUTO_INCREMENT")
                    .contains(PinReason.STATEMENT_VALUE);
        }
        try (Connection c = ds.getConnection()) {
            run(c, "INSERT INTO fcat_quiet_" + tag + " (id, v) VALUES (-1, 1)");
            assertThat(c.unwrap(LoomConnection.class).pinReasons()).as("a table without").isEmpty();
        }
        try (Connection c = ds.getConnection()) {
            assertThat(str(c, "SELECT COALESCE(@fcat_leak, 'none')")).as("the next borrower").isEqualTo("none");
            assertThat(str(c, "SELECT COALESCE(@fcat_trig, 'none')")).isEqualTo("none");
        }
    }

    /**
     * A user with USAGE only sees no function, view or trigger of anyone's: it may use none either.
     * Given SELECT on the view (no SHOW VIEW: its definition is hidden) before the pool starts, it
     * pins as unknown. (A grant after the catalog was read is a change outside the pool, seen at the
     * next refresh, within a minute, as DDL outside the pool is.)
     */
    @ParameterizedTest
    @EnumSource(Connector.class)
    void mariaAUserWithUsageOnlyIsServedAndPinsWhatItCannotSee(Connector connector) throws Exception {
        mariaObjects();
        String user = mariaUser();
        mariaAdmin("GRANT SELECT ON test.fcat_v_" + tag + " TO '" + user + "'@'%'");
        LoomPoolDataSource ds = maria(connector, 1, null);
        ds.setJdbcUrl(asMariaUser(connector, user));
        try (Connection first = ds.getConnection()) {
            assertThat(num(first, "SELECT @@in_transaction")).isZero();
            str(first, "SELECT LOWER('A')");
            assertThat(first.unwrap(LoomConnection.class).pinReasons()).isEmpty();
        }
        try (Connection c = ds.getConnection()) {
            num(c, "SELECT x FROM test.fcat_v_" + tag);
            assertThat(c.unwrap(LoomConnection.class).pinReasons()).as("a view it may read, its definition hidden")
                    .contains(PinReason.SESSION_STATE);
        }
    }

    /**
     * information_schema.TRIGGERS shows a trigger only to a user with the TRIGGER privilege on its
     * table: a user that may INSERT into the table and no more must still have its INSERT, which
     * sets a user variable through the trigger, pinned, and the next borrower must not read it.
     */
    @ParameterizedTest
    @EnumSource(Connector.class)
    void mariaATriggerTheUserMayNotSeeStillPinsItsTable(Connector connector) throws Exception {
        mariaObjects();
        String user = mariaUser();
        mariaAdmin("GRANT SELECT, INSERT ON test.fcat_trg_" + tag + " TO '" + user + "'@'%'");
        LoomPoolDataSource ds = maria(connector, 1, null);
        ds.setJdbcUrl(asMariaUser(connector, user));
        try (Connection a = ds.getConnection()) {
            run(a, "INSERT INTO test.fcat_trg_" + tag + " (id, v) VALUES (1, 7)");
            assertThat(a.unwrap(LoomConnection.class).pinReasons()).contains(PinReason.SESSION_STATE);
        }
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, "SELECT COALESCE(@fcat_trig, 'none')")).isEqualTo("none");
        }
    }

    private String mariaUser() throws SQLException {
        String user = "fcat_u_" + tag;
        mariaAdmin("CREATE USER '" + user + "'@'%'");
        mariaCleanup.add(0, "DROP USER IF EXISTS '" + user + "'@'%'");
        return user;
    }

    private static String asMariaUser(Connector connector, String user) {
        String url = connector.url(null).replaceFirst("(jdbc:[a-z]+://[^/?]+)/[^?]*", "$1/"); // USAGE only: no database
        return url.contains("user=") ? url.replaceFirst("user=[^&]*", "user=" + user)
                : url + (url.contains("?") ? "&" : "?") + "user=" + user;
    }
}
