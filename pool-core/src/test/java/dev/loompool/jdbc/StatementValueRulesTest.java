package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * The rules of DESIGN.md §4 "Per-statement values" on the stub (whose SQL is read by the rules
 * of an unknown database: functions and variables count, an INSERT leaves nothing). The same
 * cases run on the real servers in {@link PostgresStatementValuesTest} and
 * {@link MariaDbStatementValuesTest}.
 */
class StatementValueRulesTest extends StubSupport {

    private LoomPoolDataSource ds() {
        LoomPoolDataSource ds = dataSource();
        ds.setMaxSize(1);
        return ds;
    }

    private static LoomConnection loom(Connection c) throws SQLException {
        return c.unwrap(LoomConnection.class);
    }

    @Test
    void aValueLeftForTheNextStatementKeepsTheConnectionUntilTheHandlesNextStatementHasRun() throws SQLException {
        try (Connection c = ds().getConnection()) {
            BindingTest.query(c, "SELECT nextval('s')");
            assertThat(loom(c).pinReasons()).containsExactly(PinReason.STATEMENT_VALUE);
            BindingTest.query(c, "SELECT lastval()");
            assertThat(loom(c).isBound()).as("the value was read: nothing keeps the connection").isFalse();
        }
        assertThat(stub(1).sql()).containsExactly("SELECT nextval('s')", "SELECT lastval()");
    }

    @Test
    void anyNextStatementEndsThePinOfAValueLeft() throws SQLException {
        try (Connection c = ds().getConnection()) {
            BindingTest.query(c, "SELECT nextval('s')"); // MySQL's LAST_INSERT_ID(expr) is session state: it pins until close
            BindingTest.query(c, "SELECT 1");
            assertThat(loom(c).isBound()).isFalse();
        }
    }

    @Test
    void aReadAsTheFirstStatementOnAConnectionIsRefusedBeforeTheDriverNamingThePoolAndTheWayOut() throws SQLException {
        try (Connection c = ds().getConnection(); Statement st = c.createStatement()) {
            assertThatThrownBy(() -> st.executeQuery("SELECT FOUND_ROWS()\nFROM dual"))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("pool 'stub-" + db.name() + "'")
                    .hasMessageContaining("\"SELECT FOUND_ROWS()\"")
                    .hasMessageContaining("getGeneratedKeys()")
                    .hasMessageContaining("RETURNING")
                    .hasMessageContaining("one transaction")
                    .hasMessageContaining("unwrap(LoomConnection.class).pin()")
                    .extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("55000");
        }
        assertThat(stub(1).sql()).isEmpty();
    }

    @Test
    void aReadOfThePreviousStatementsValueAfterTheConnectionWentBackIsRefused() throws SQLException {
        try (Connection c = ds().getConnection()) {
            BindingTest.query(c, "SELECT 1");
            assertThatThrownBy(() -> BindingTest.query(c, "SELECT ROW_COUNT()")).isInstanceOf(SQLException.class)
                    .hasMessageContaining("went back to the pool");
        }
        assertThat(stub(1).sql()).containsExactly("SELECT 1");
    }

    @Test
    void aReadOfThePreviousStatementsValueOnTheSameBindingRuns() throws SQLException {
        try (Connection c = ds().getConnection(); Statement st = c.createStatement()) {
            st.execute("SELECT 1");
            st.execute("SHOW WARNINGS");
            st.execute("SELECT @@warning_count");
        }
        assertThat(stub(1).sql()).containsExactly("SELECT 1", "SHOW WARNINGS", "SELECT @@warning_count");
    }

    @Test
    void aKeptValueIsReadOnlyOnTheBindingWhereTheHandleLeftIt() throws SQLException {
        try (Connection c = ds().getConnection(); Statement st = c.createStatement()) {
            st.execute("SELECT 1"); // the same binding, but the session's lastval() is whoever's came before
            assertThatThrownBy(() -> st.execute("SELECT lastval()")).isInstanceOf(SQLException.class)
                    .hasMessageContaining("has not run the statement that sets it");
            st.execute("SELECT nextval('s')");
            st.execute("SELECT 1");
            st.execute("SELECT currval('s')");
        }
        assertThat(stub(1).sql()).containsExactly("SELECT 1", "SELECT nextval('s')", "SELECT 1", "SELECT currval('s')");
    }

    @Test
    void aPreparedReadIsCheckedWhenItRunsAndNamesItsSql() throws SQLException {
        try (Connection c = ds().getConnection()) {
            PreparedStatement read = c.prepareStatement("SELECT lastval()");
            assertThatThrownBy(read::executeQuery).hasMessageContaining("\"SELECT lastval()\"");
            read.close();
            BindingTest.query(c, "SELECT nextval('s')");
            try (PreparedStatement again = c.prepareStatement("SELECT lastval()")) {
                again.executeQuery().close();
            }
        }
        assertThat(stub(1).sql()).containsExactly("SELECT nextval('s')", "SELECT lastval()");
    }

    @Test
    void insideATransactionReadsRunAsOnThePlainDriver() throws SQLException {
        try (Connection c = ds().getConnection()) {
            c.setAutoCommit(false);
            BindingTest.query(c, "SELECT LAST_INSERT_ID(3)");
            BindingTest.query(c, "SELECT 1");
            BindingTest.query(c, "SELECT LAST_INSERT_ID()");
            c.commit();
        }
        assertThat(stub(1).sql()).containsExactly("SELECT LAST_INSERT_ID(3)", "SELECT 1", "SELECT LAST_INSERT_ID()", "COMMIT");
    }

    @Test
    void aCommitEndsTheKeepingOfAValueAndALaterReadOnAnotherBindingIsRefused() throws SQLException {
        try (Connection c = ds().getConnection()) {
            c.setAutoCommit(false);
            BindingTest.query(c, "SELECT nextval('s')");
            BindingTest.query(c, "SELECT lastval()"); // the same binding: as on the plain driver
            c.commit();
            assertThat(loom(c).isBound()).isFalse();
            c.setAutoCommit(true);
            BindingTest.query(c, "SELECT nextval('s')");
            BindingTest.query(c, "SELECT 1");
            assertThatThrownBy(() -> BindingTest.query(c, "SELECT lastval()")).isInstanceOf(SQLException.class);
        }
    }

    @Test
    void readingTheConnectionsIdentityPinsUntilTheHandleCloses() throws SQLException {
        LoomPoolDataSource ds = ds();
        try (Connection c = ds.getConnection()) {
            BindingTest.query(c, "SELECT CONNECTION_ID()");
            BindingTest.query(c, "SELECT 1");
            assertThat(loom(c).pinReasons()).containsExactly(PinReason.EXPLICIT);
        }
        try (Connection c = ds.getConnection()) {
            BindingTest.query(c, "SELECT pg_backend_pid()");
            assertThat(loom(c).pinReasons()).containsExactly(PinReason.EXPLICIT);
        }
        assertThat(ds.getPinnedConnections().get(PinReason.EXPLICIT)).isZero();
    }
}
