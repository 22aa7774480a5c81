package dev.loompool.jdbc;

import static dev.loompool.jdbc.BindingTest.query;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A transaction takes its physical connection where it begins (DESIGN.md §5, issue 26 item 8):
 * {@code setAutoCommit(false)} on an unbound handle, or the first use of a handle whose autocommit
 * is off, binds at once within the acquire timeout, as a classic pool has the connection from
 * {@code getConnection()}; between transactions the handle still lets its connection go.
 */
class TransactionBeginBindsTest extends StubSupport {

    private static boolean bound(Connection c) throws SQLException {
        return c.unwrap(LoomConnection.class).isBound();
    }

    @Test
    void setAutoCommitFalseBindsAtOnceAndCommitLetsTheConnectionGoAgain() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        try (Connection c = ds.getConnection()) {
            assertThat(c.getAutoCommit()).isTrue();
            assertThat(bound(c)).as("autocommit on: asking binds nothing").isFalse();
            c.setAutoCommit(false);
            assertThat(bound(c)).as("the transaction begins here").isTrue();
            assertThat(c.unwrap(LoomConnection.class).pinReasons()).containsExactly(PinReason.TRANSACTION);
            query(c, "INSERT 1");
            c.commit();
            assertThat(bound(c)).as("between transactions").isFalse();
            c.setAutoCommit(true);
            query(c, "SELECT 1");
            assertThat(bound(c)).isFalse();
        }
        assertThat(stub(1).sql()).containsExactly("INSERT 1", "COMMIT", "SELECT 1");
        assertThat(ds.getPool().stats().inUse()).isZero();
    }

    @Test
    void anExhaustedPoolFailsSetAutoCommitFalseAfterTheAcquireTimeoutAndLeavesTheHandleAsItWas() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setMaxSize(1);
        ds.setAcquireTimeout(Duration.ofMillis(200));
        try (Connection holder = ds.getConnection(); Connection c = ds.getConnection()) {
            holder.setAutoCommit(false);
            assertThatThrownBy(() -> c.setAutoCommit(false)).isInstanceOf(SQLTransientConnectionException.class)
                    .hasMessageContaining("pool '");
            assertThat(c.getAutoCommit()).as("unchanged").isTrue();
            assertThat(bound(c)).isFalse();
            holder.rollback();
            holder.setAutoCommit(true);
            c.setAutoCommit(false);
            assertThat(bound(c)).isTrue();
        }
        assertThat(ds.getPool().stats().inUse()).isZero();
    }

    @Test
    void withThePoolsAutocommitOffAskingForItBindsAsTheTransactionBegins() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setAutoCommit(false);
        try (Connection c = ds.getConnection()) {
            assertThat(c.getAutoCommit()).isFalse();
            assertThat(bound(c)).as("in a transaction from its first use").isTrue();
            query(c, "INSERT 1");
            c.commit();
            assertThat(bound(c)).isFalse();
        }
        assertThat(stub(1).sql()).endsWith("INSERT 1", "COMMIT"); // after what setting up the connection ran
        assertThat(ds.getPool().stats().inUse()).isZero();
    }
}
