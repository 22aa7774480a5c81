package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.stub.StubConnection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** Lazy binding and the pins of DESIGN.md §4, on the stub driver. */
class BindingTest extends StubSupport {

    @Test
    void configuringAndGettingAConnectionOpensNothing() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        assertThat(db.connects()).isEqualTo(0);
        try (Connection c = ds.getConnection()) {
            assertThat(c.unwrap(LoomConnection.class).isBound()).isFalse();
            assertThat(db.connects()).isEqualTo(0);
            assertThat(ds.getOpenHandles()).as("a handle counts from its first use").isZero();
        }
        assertThat(ds.getOpenHandles()).isZero();
    }

    @Test
    void aClosedStatementGivesTheConnectionBackAtOnce() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        try (Connection c = ds.getConnection()) {
            try (PreparedStatement ps = c.prepareStatement("SELECT 1"); ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                assertThat(c.unwrap(LoomConnection.class).pinReasons()).containsExactly(PinReason.STATEMENT);
                assertThat(ds.getPool().stats().inUse()).isEqualTo(1);
                assertThat(rs.getStatement()).isSameAs(ps);
                assertThat(ps.getConnection()).isSameAs(c);
            }
            assertThat(c.unwrap(LoomConnection.class).isBound()).isFalse();
            assertThat(ds.getPool().stats().inUse()).isZero();
            assertThat(stub(1).openStatements()).isEqualTo(0);
        }
    }

    @Test
    void twoHandlesTakeTurnsOnOnePhysicalConnection() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        try (Connection a = ds.getConnection(); Connection b = ds.getConnection()) {
            query(a, "SELECT 'a'");
            query(b, "SELECT 'b'");
            query(a, "SELECT 'a2'");
        }
        assertThat(db.connects()).isEqualTo(1);
        assertThat(stub(1).sql()).containsExactly("SELECT 'a'", "SELECT 'b'", "SELECT 'a2'");
    }

    @Test
    void setAutoCommitFalseKeepsOnePhysicalConnectionUntilCommit() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        try (Connection tx = ds.getConnection(); Connection other = ds.getConnection()) {
            tx.setAutoCommit(false);
            query(tx, "INSERT 1");
            query(other, "SELECT other"); // must not see the transaction's connection
            query(tx, "INSERT 2");
            assertThat(tx.unwrap(LoomConnection.class).pinReasons()).containsExactly(PinReason.TRANSACTION);
            tx.commit();
            assertThat(tx.unwrap(LoomConnection.class).isBound()).isFalse();
        }
        assertThat(stub(1).sql()).containsExactly("INSERT 1", "INSERT 2", "COMMIT");
        assertThat(stub(2).sql()).containsExactly("SELECT other");
    }

    @Test
    void sqlBeginPinsUntilSqlCommit() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("  /* app */ begin");
            st.execute("INSERT 1");
            assertThat(c.unwrap(LoomConnection.class).pinReasons()).contains(PinReason.TRANSACTION);
            st.execute("COMMIT");
            assertThat(c.unwrap(LoomConnection.class).pinReasons()).doesNotContain(PinReason.TRANSACTION);
        }
        assertThat(ds.getPool().stats().inUse()).isZero();
    }

    @Test
    void workLeftUncommittedAtCloseIsRolledBack() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            query(c, "INSERT 1");
        }
        assertThat(stub(1).sql()).containsExactly("INSERT 1", "ROLLBACK");
        assertThat(stub(1).getAutoCommit()).as("reset to the default").isTrue();
    }

    @Test
    void handleSettingsAreReplayedOnEachBindAndOnlyDirtyOnesReset() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        try (Connection c = ds.getConnection()) {
            c.setReadOnly(true);
            assertThat(db.connects()).as("a setter alone binds nothing").isEqualTo(0);
            assertThat(c.isReadOnly()).isTrue();
            query(c, "SELECT 1");
            assertThat(stub(1).isReadOnly()).isFalse(); // back in the pool: reset
            query(c, "SELECT 2");
        }
        StubConnection s = stub(1);
        assertThat(s.calls("setReadOnly")).as("applied twice, reset twice").isEqualTo(4);
        assertThat(s.calls("setTransactionIsolation")).as("never touched").isZero();
        assertThat(s.calls("setCatalog")).isZero();
    }

    @Test
    void aSettingPutBackToItsDefaultIsNotResetAgain() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            query(c, "UPDATE 1");
            c.setAutoCommit(true); // commits, and puts the default back while the connection is still bound
        }
        StubConnection s = stub(1);
        assertThat(s.calls("setAutoCommit")).as("off, then on again by the caller; no reset's own").isEqualTo(2);
        assertThat(s.calls("setNetworkTimeout")).as("no reset ran: nothing to undo").isZero();
        assertThat(s.getAutoCommit()).isTrue();
    }

    @Test
    void sessionStatePinsUntilCloseAndAConnectionThatCannotBeResetIsRetired() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setCircuitBreakerFailureThreshold(1);
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("SET search_path TO app");
            st.close();
            assertThat(c.unwrap(LoomConnection.class).pinReasons()).containsExactly(PinReason.SESSION_STATE);
        }
        assertThat(stub(1).isClosed()).as("the stub database cannot reset a session").isTrue();
        assertThat(ds.getPool().state()).as("a retirement is no failure").isEqualTo(dev.loompool.CircuitBreakerState.ACTIVE);
    }

    @Test
    void explicitPinsHoldUntilUnpinned() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        try (Connection c = ds.getConnection()) {
            LoomConnection loom = c.unwrap(LoomConnection.class);
            loom.pin();
            query(c, "SELECT 1");
            assertThat(loom.pinReasons()).containsExactly(PinReason.EXPLICIT);
            loom.unpin();
            assertThat(loom.isBound()).isFalse();
            StubConnection driverObject = c.unwrap(StubConnection.class);
            assertThat(driverObject).isSameAs(stub(1));
            assertThat(loom.pinReasons()).containsExactly(PinReason.EXPLICIT);
        }
    }

    @Test
    void metadataResultSetsPinUntilClosed() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        try (Connection c = ds.getConnection()) {
            ResultSet tables = c.getMetaData().getTables(null, null, "%", null);
            assertThat(c.unwrap(LoomConnection.class).pinReasons()).contains(PinReason.STATEMENT);
            assertThat(tables.getStatement()).isNull();
            tables.close();
            assertThat(c.unwrap(LoomConnection.class).pinReasons()).doesNotContain(PinReason.STATEMENT);
        }
    }

    @Test
    void closingTheHandleClosesItsStatements() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        Statement st;
        try (Connection c = ds.getConnection()) {
            st = c.createStatement();
            st.executeQuery("SELECT 1");
        }
        assertThat(st.isClosed()).isTrue();
        assertThat(stub(1).openStatements()).isEqualTo(1); // the stub's result set was never closed by anyone
        assertThat(ds.getPool().stats().inUse()).isZero();
    }

    @Test
    void severalOpenStatementsPinUntilTheLastClosesInAnyOrder() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        try (Connection c = ds.getConnection()) {
            LoomConnection handle = c.unwrap(LoomConnection.class);
            Statement first = c.createStatement();
            PreparedStatement second = c.prepareStatement("SELECT 2");
            Statement third = c.createStatement();
            Statement fourth = c.createStatement();
            second.close();
            second.close(); // twice: counted once
            first.close();
            fourth.close();
            assertThat(handle.pinReasons()).containsExactly(PinReason.STATEMENT);
            assertThat(ds.getPool().stats().inUse()).isEqualTo(1);
            third.close();
            assertThat(handle.isBound()).isFalse();
            assertThat(stub(1).openStatements()).isEqualTo(0);
            Statement again = c.createStatement();
            Statement andAgain = c.createStatement();
            assertThat(handle.pinReasons()).containsExactly(PinReason.STATEMENT);
            c.close();
            assertThat(again.isClosed()).isTrue();
            assertThat(andAgain.isClosed()).isTrue();
        }
        assertThat(ds.getPool().stats().inUse()).isZero();
        assertThat(stub(1).openStatements()).isEqualTo(0);
    }

    @Test
    void releaseModeCloseBindsFromGetConnectionUntilClose() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setReleaseMode(ReleaseMode.CLOSE);
        try (Connection c = ds.getConnection()) {
            assertThat(c.unwrap(LoomConnection.class).pinReasons()).containsExactly(PinReason.RELEASE_MODE);
            query(c, "SELECT 1");
            assertThat(ds.getPool().stats().inUse()).isEqualTo(1);
        }
        assertThat(ds.getPool().stats().inUse()).isZero();
    }

    @Test
    void aClosedHandleRefusesUse() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        Connection c = ds.getConnection();
        c.close();
        c.close();
        assertThat(c.isClosed()).isTrue();
        assertThatThrownBy(c::createStatement).isInstanceOf(SQLException.class).hasMessage("connection is closed")
                .extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("08003");
    }

    static void query(Connection c, String sql) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            rs.next();
        }
    }
}
