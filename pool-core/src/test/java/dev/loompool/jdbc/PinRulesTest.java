package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.CircuitBreakerState;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The pin rules of DESIGN.md §4 on the strict stub, once with a driver that tells its transaction
 * state (as pgjdbc and MariaDB do) and once with one that cannot, where the pool must err towards
 * pinning. The same cases run on the real databases in the pin-semantics suites.
 */
class PinRulesTest extends StubSupport {

    private LoomPoolDataSource dataSource(boolean wireReadable) {
        db.wireReadable(wireReadable);
        LoomPoolDataSource ds = dataSource();
        ds.setMaxSize(1);
        return ds;
    }

    private static LoomConnection loom(Connection c) throws SQLException {
        return c.unwrap(LoomConnection.class);
    }

    @ParameterizedTest(name = "wire readable: {0}")
    @ValueSource(booleans = {true, false})
    void workOnAStatementStillOpenAfterCommitIsRolledBackByTheNextRollback(boolean wire) throws SQLException {
        LoomPoolDataSource ds = dataSource(wire);
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            PreparedStatement ps = c.prepareStatement("INSERT row");
            ps.executeUpdate();
            c.commit();
            ps.executeUpdate(); // the driver begins the next transaction
            ps.close();
            assertThat(loom(c).pinReasons()).as("the second insert is uncommitted").contains(PinReason.TRANSACTION);
            c.rollback();
            assertThat(loom(c).isBound()).isFalse();
        }
        assertThat(stub(1).sql()).containsExactly("INSERT row", "COMMIT", "INSERT row", "ROLLBACK");
    }

    @ParameterizedTest(name = "wire readable: {0}")
    @ValueSource(booleans = {true, false})
    void sqlCommitWithAutoCommitOffThenMoreWorkKeepsThatWorkUncommitted(boolean wire) throws SQLException {
        LoomPoolDataSource ds = dataSource(wire);
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            st.execute("INSERT 1");
            st.execute("COMMIT");
            st.execute("INSERT 2");
        }
        assertThat(stub(1).sql()).containsExactly("INSERT 1", "COMMIT", "INSERT 2", "ROLLBACK");
    }

    @ParameterizedTest(name = "wire readable: {0}")
    @ValueSource(booleans = {true, false})
    void autoCommitSwitchedOffAndOnAgainNeitherDestroysTheConnectionNorTripsTheBreaker(boolean wire)
            throws SQLException {
        LoomPoolDataSource ds = dataSource(wire);
        ds.setCircuitBreakerFailureThreshold(2);
        for (int i = 0; i < 6; i++) {
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                BindingTest.query(c, "INSERT " + i);
                c.setAutoCommit(true); // commits, as JDBC says
            }
        }
        assertThat(db.connects()).as("one connection throughout").isEqualTo(1);
        assertThat(stub(1).sql()).doesNotContain("ROLLBACK").filteredOn("COMMIT"::equals).hasSize(6);
        assertThat(ds.getPool().state()).isEqualTo(CircuitBreakerState.ACTIVE);
    }

    @ParameterizedTest(name = "wire readable: {0}")
    @ValueSource(booleans = {true, false})
    void anSqlBeginLeftOpenAtCloseIsRolledBackBySqlAndTheConnectionKept(boolean wire) throws SQLException {
        LoomPoolDataSource ds = dataSource(wire);
        ds.setCircuitBreakerFailureThreshold(2);
        for (int i = 0; i < 3; i++) {
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("BEGIN");
                st.execute("INSERT " + i);
            }
        }
        assertThat(db.connects()).isEqualTo(1);
        assertThat(stub(1).sql()).filteredOn("ROLLBACK"::equals).hasSize(3);
        assertThat(stub(1).calls("rollback")).as("rollback() in autocommit mode throws").isZero();
        assertThat(ds.getPool().state()).isEqualTo(CircuitBreakerState.ACTIVE);
    }

    @ParameterizedTest(name = "wire readable: {0}")
    @ValueSource(booleans = {true, false})
    void commitAndChainKeepsTheTransactionPinned(boolean wire) throws SQLException {
        LoomPoolDataSource ds = dataSource(wire);
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("BEGIN");
            st.execute("COMMIT AND CHAIN");
            st.close();
            assertThat(loom(c).pinReasons()).containsExactly(PinReason.TRANSACTION);
            try (Statement again = c.createStatement()) {
                again.execute("INSERT 1; BEGIN");
                again.execute("ROLLBACK");
            }
            assertThat(loom(c).isBound()).isFalse();
        }
    }

    @ParameterizedTest(name = "wire readable: {0}")
    @ValueSource(booleans = {true, false})
    void beginThenAbortEndsThePin(boolean wire) throws SQLException {
        LoomPoolDataSource ds = dataSource(wire);
        try (Connection c = ds.getConnection()) {
            try (Statement st = c.createStatement()) {
                st.execute("BEGIN; ABORT");
            }
            assertThat(loom(c).isBound()).isFalse();
            try (Statement st = c.createStatement()) {
                st.execute("BEGIN");
                st.execute("ABORT");
            }
            assertThat(loom(c).isBound()).isFalse();
        }
    }

    @ParameterizedTest(name = "wire readable: {0}")
    @ValueSource(booleans = {true, false})
    void aStatementTheDriverClosesOnCompletionEndsItsPin(boolean wire) throws SQLException {
        LoomPoolDataSource ds = dataSource(wire);
        try (Connection c = ds.getConnection()) {
            Statement st = c.createStatement();
            st.closeOnCompletion();
            ResultSet rs = st.executeQuery("SELECT 1");
            assertThat(loom(c).pinReasons()).containsExactly(PinReason.STATEMENT);
            rs.close();
            assertThat(st.isClosed()).isTrue();
            assertThat(loom(c).isBound()).isFalse();
        }
    }

    @ParameterizedTest(name = "wire readable: {0}")
    @ValueSource(booleans = {true, false})
    void metadataPinsOnlyWhileItsResultSetIsOpen(boolean wire) throws SQLException {
        LoomPoolDataSource ds = dataSource(wire);
        try (Connection c = ds.getConnection()) {
            DatabaseMetaData md = c.getMetaData();
            assertThat(loom(c).isBound()).isFalse();
            assertThat(md.getConnection()).isSameAs(c);
            try (ResultSet rs = md.getTables(null, null, "%", null)) {
                assertThat(loom(c).pinReasons()).containsExactly(PinReason.STATEMENT);
                assertThat(rs.next()).isTrue();
            }
            assertThat(loom(c).isBound()).isFalse();
            assertThat(md.getDatabaseProductName()).isEqualTo("Stub");
            assertThat(loom(c).isBound()).isFalse();
        }
    }

    @ParameterizedTest(name = "wire readable: {0}")
    @ValueSource(booleans = {true, false})
    void aResetThatFailsForAReasonOtherThanTheConnectionClosesItWithoutTrippingTheBreaker(boolean wire)
            throws SQLException {
        LoomPoolDataSource ds = dataSource(wire);
        ds.setCircuitBreakerFailureThreshold(2);
        for (int i = 0; i < 4; i++) {
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("BEGIN");
                db.latest().failNext(new SQLException("cannot roll back here", "XX000")); // the reset's ROLLBACK fails
            }
        }
        assertThat(db.connects()).as("each failed reset closed its connection").isEqualTo(4);
        assertThat(ds.getPool().state()).isEqualTo(CircuitBreakerState.ACTIVE);
        assertThat(db.open()).isZero();
    }

    @ParameterizedTest(name = "wire readable: {0}")
    @ValueSource(booleans = {true, false})
    void aResetThatFailsBecauseTheConnectionIsGoneClosesItWithoutABreakerFailure(boolean wire) throws SQLException {
        LoomPoolDataSource ds = dataSource(wire);
        ds.setCircuitBreakerFailureThreshold(2);
        for (int i = 0; i < 2; i++) {
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("BEGIN");
                db.latest().loseNext(new SQLException("connection lost", "08006"));
            }
        }
        assertThat(db.connects()).as("each lost connection was replaced, not reused").isEqualTo(2);
        assertThat(ds.getPool().state()).as("the database still accepts connections").isEqualTo(CircuitBreakerState.ACTIVE);
    }
}
