package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Per-statement values: a value that belongs to the previous statement (lastval, LAST_INSERT_ID(),
 * PREVIOUS VALUE FOR, FOUND_ROWS(), warnings) is read on the connection that ran that statement, or
 * refused; a borrower never reads another borrower's value.
 */
class PerStatementValuesStayWithTheirBorrowerTest extends OnRealDatabases {

    /** A's own lastval() answers with B's value when B ran in between on the shared connection. */
    @Test
    void pgLastvalReturnsAnotherBorrowersValue() throws SQLException {
        String seq = "loompool_atk_seq2_" + tag;
        pgAdmin("CREATE SEQUENCE " + seq + " START 1");
        pgCleanup.add("DROP SEQUENCE IF EXISTS " + seq);
        LoomPoolDataSource ds = pg(2);
        try (Connection a = ds.getConnection(); Connection b = ds.getConnection()) {
            long mine = num(a, "SELECT nextval('" + seq + "')"); // 1
            num(b, "SELECT nextval('" + seq + "')"); // 2, B's
            assertThat(num(a, "SELECT lastval()")).as("plain pgjdbc: A's own lastval").isEqualTo(mine);
        }
    }

    /** LAST_INSERT_ID() is per physical connection: A's insert keeps A's connection for A's next statement (issue 26). */
    @Test
    void mariaLastInsertIdOfAnotherBorrower() throws SQLException {
        mariaLastInsertIdIsTheHandlesOwn(); // the insert keeps A's connection: B needs another
    }

    /** B did not set LAST_INSERT_ID() on the connection it holds: its read is refused, never A's id (issue 26). */
    @Test
    void mariaLastInsertIdVisibleToTheNextBorrower() throws SQLException {
        mariaTable();
        mariaAThenB(maria(1), a -> run(a, "INSERT INTO " + table + " (v) VALUES (1)"),
                b -> assertThatThrownBy(() -> num(b, "SELECT LAST_INSERT_ID()")).as("a fresh session would say 0; never A's id")
                        .isInstanceOf(SQLException.class).hasMessageContaining("LAST_INSERT_ID"));
    }

    /**
     * MariaDB's NEXT VALUE FOR and PREVIOUS VALUE FOR are nextval and lastval: the value is kept for
     * A's next statement, and a borrower that did not set it is refused (issue 26).
     */
    @Test
    void mariaPreviousValueForIsTheBorrowersOwn() throws SQLException {
        String seq = "loompool_atk_seq_" + tag;
        mariaAdmin("CREATE SEQUENCE " + seq);
        mariaCleanup.add("DROP SEQUENCE IF EXISTS " + seq);
        LoomPoolDataSource ds = maria(2);
        try (Connection a = ds.getConnection(); Connection b = ds.getConnection()) {
            long mine = num(a, "SELECT NEXT VALUE FOR " + seq);
            num(b, "SELECT NEXT VALUE FOR " + seq);
            assertThat(num(a, "SELECT PREVIOUS VALUE FOR " + seq)).as("A's own value, not B's").isEqualTo(mine);
        }
        try (Connection c = ds.getConnection()) {
            assertThatThrownBy(() -> str(c, "SELECT coalesce(PREVIOUS VALUE FOR " + seq + ", 'none')"))
                    .as("a fresh session would say none; never A's value").isInstanceOf(SQLException.class);
        }
    }

    /**
     * FOUND_ROWS() after a plain SELECT (no SQL_CALC_FOUND_ROWS) inside A's own transaction: the
     * binding cannot change in a transaction, so the count is A's own; the plain driver answers it.
     */
    @ParameterizedTest
    @EnumSource(Connector.class)
    void foundRowsAfterAPlainSelectInsideTheTransactionAnswersAsThePlainDriver(Connector connector) throws SQLException {
        mariaTable();
        mariaAdmin("INSERT INTO " + table + " (v) VALUES (1), (2), (3)");
        String select = "SELECT v FROM " + table + " WHERE v < 3";
        long plain;
        try (Connection c = DriverManager.getConnection(connector.url(null))) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(select)) {
                while (rs.next()) { }
            }
            plain = num(c, "SELECT FOUND_ROWS()");
            c.rollback();
        }
        assertThat(plain).as("the plain driver's count").isEqualTo(2);
        LoomPoolDataSource ds = maria(connector, 1, null);
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            try (Statement st = a.createStatement(); ResultSet rs = st.executeQuery(select)) {
                while (rs.next()) { }
            }
            assertThat(num(a, "SELECT FOUND_ROWS()")).as("the pool's count").isEqualTo(plain);
            a.rollback();
        }
    }

    /** SQL_CALC_FOUND_ROWS, then a SET, then FOUND_ROWS() in the same transaction: the server keeps the count over the SET. */
    @ParameterizedTest
    @EnumSource(Connector.class)
    void foundRowsAfterCalcThenASetInsideTheTransactionAnswersAsThePlainDriver(Connector connector) throws SQLException {
        mariaTable();
        mariaAdmin("INSERT INTO " + table + " (v) VALUES (1), (2), (3), (4)");
        String select = "SELECT SQL_CALC_FOUND_ROWS v FROM " + table + " LIMIT 1";
        long plain;
        try (Connection c = DriverManager.getConnection(connector.url(null))) {
            c.setAutoCommit(false);
            num(c, select);
            run(c, "SET @wt38y_x = 1");
            plain = num(c, "SELECT FOUND_ROWS()");
            c.rollback();
        }
        assertThat(plain).isEqualTo(4);
        LoomPoolDataSource ds = maria(connector, 1, null);
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            num(a, select);
            run(a, "SET @wt38y_x = 1");
            assertThat(num(a, "SELECT FOUND_ROWS()")).isEqualTo(plain);
            a.rollback();
        }
    }

    /** A leaves a warning on the MariaDB session; B, on the same connection, must not read it. */
    @Test
    void warningOfAIsNotReadByBOnMariaDb() throws SQLException {
        LoomPoolDataSource ds = maria(1);
        String conA;
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            conA = str(a, "SELECT CONNECTION_ID()");
            run(a, "SELECT 1/0"); // "Division by 0"
            SQLWarning w = a.getWarnings();
            assertThat((Object) w).as("A reads its own warning while bound").isNotNull();
            a.commit();
        }
        try (Connection b = ds.getConnection()) {
            b.setAutoCommit(false); // binds B
            b.unwrap(LoomConnection.class).pin();
            assertThat((Object) b.getWarnings()).as("B, before any SQL of its own").isNull();
            assertThat(str(b, "SELECT CONNECTION_ID()")).isEqualTo(conA);
            b.rollback();
        }
    }
}
