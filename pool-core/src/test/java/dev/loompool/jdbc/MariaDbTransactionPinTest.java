package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The transaction pin and transaction state from the wire on MariaDB: every spelling of a
 * transaction start keeps the connection, a failed statement or procedure inside a transaction does
 * not let it go (the OK packet's status says so), and B never starts inside A's transaction nor with
 * autocommit off.
 */
class MariaDbTransactionPinTest extends OnRealDatabases {

    /** Error inside a transaction, A goes on and closes without commit; B is clean. */
    @Test
    void mariaErrorInsideATransactionThenClose() throws SQLException {
        mariaTable();
        LoomPoolDataSource ds = maria(1);
        mariaAThenB(ds, a -> {
            run(a, "START TRANSACTION");
            run(a, "INSERT INTO " + table + " (v) VALUES (1)");
            assertThatThrownBy(() -> run(a, "INSERT INTO no_such_table_" + tag + " VALUES (1)"))
                    .isInstanceOf(SQLException.class);
            run(a, "INSERT INTO " + table + " (v) VALUES (2)");
            run(a, "SELECT * FROM " + table + " FOR UPDATE");
        }, b -> {
            assertThat(num(b, "SELECT @@in_transaction")).isZero();
            run(b, "INSERT INTO " + table + " (v) VALUES (3)");
        });
        assertThat(mariaRows()).isEqualTo(1);
    }

    /** MariaDB transaction spellings. */
    @Test
    void mariaExoticTransactionSpellings() throws SQLException {
        mariaTable();
        LoomPoolDataSource ds = maria(1);
        String[] txLeaks = {
            "commit;begin",
            "BEGIN WORK",
            "/*!START TRANSACTION*/",
            "/*M!100100 START TRANSACTION */",
            "set autocommit=0",
            "SET @@session.autocommit = OFF",
            "SET STATEMENT max_statement_time=5 FOR START TRANSACTION",
            "XA BEGIN 'atkxa'",
            "SELECT 1 INTO @`x`; START TRANSACTION",
            "COMMIT AND CHAIN",
        };
        List<String> failures = new ArrayList<>();
        for (String sql : txLeaks) {
            long idA;
            try (Connection a = ds.getConnection()) {
                idA = myId(a);
                try {
                    run(a, sql);
                } catch (SQLException e) {
                    failures.add(sql + " -> refused by server: " + e.getMessage());
                    continue;
                }
                run(a, "INSERT INTO " + table + " (v) VALUES (1)");
            }
            try (Connection b = ds.getConnection()) {
                if (myId(b) == idA && num(b, "SELECT @@in_transaction") != 0) {
                    failures.add(sql + " -> B inside a transaction");
                }
                if (num(b, "SELECT @@autocommit") != 1) {
                    failures.add(sql + " -> B has autocommit off");
                }
            }
            if (mariaRows() != 0) {
                failures.add(sql + " -> A's uncommitted insert committed");
                mariaAdmin("DELETE FROM " + table);
            }
        }
        assertThat(failures).isEmpty();
    }

    /**
     * A procedure that opens a transaction and then fails (SIGNAL), called with the {call} escape
     * that the classifier does not see as CALL: the wire state still reports the transaction.
     */
    @Test
    void mariaFailedProcedureThatOpenedATransactionStaysPinned() throws SQLException {
        mariaTable();
        String proc = "loompool_atk_p2_" + tag;
        mariaAdmin("CREATE PROCEDURE " + proc + "() BEGIN START TRANSACTION; INSERT INTO " + table
                + " (v) VALUES (1); SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'boom'; END");
        mariaCleanup.add("DROP PROCEDURE IF EXISTS " + proc);
        LoomPoolDataSource ds = maria(1);
        mariaAThenB(ds, a -> {
            try (CallableStatement cs = a.prepareCall("{call " + proc + "()}")) {
                assertThatThrownBy(cs::execute).isInstanceOf(SQLException.class);
            }
            assertThat(a.unwrap(LoomConnection.class).pinReasons()).contains(PinReason.TRANSACTION);
        }, b -> {
            assertThat(num(b, "SELECT @@in_transaction")).isZero();
            run(b, "INSERT INTO " + table + " (v) VALUES (2)");
        });
        try (Connection admin = TestDatabase.MARIADB.admin()) {
            assertThat(str(admin, "SELECT COALESCE(GROUP_CONCAT(v ORDER BY v), '') FROM " + table)).isEqualTo("2");
        }
    }
}
