package dev.loompool.jdbc.internal.physical;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.jdbc.internal.driver.SessionAttribute;
import dev.loompool.jdbc.internal.driver.Settings;
import dev.loompool.stub.StubConnection;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Reset on return (DESIGN.md §4), as {@link ReturnUndo} does it on a returned connection: a
 * rollback only when a transaction may be open (by SQL in autocommit mode, where pgjdbc refuses
 * {@code rollback()}), only the marked settings put back, and a reset that fails retires the
 * connection, as broken only when the connection is gone.
 */
class ReturnUndoTest extends StubPoolFixture {

    private static void execute(PhysicalConnection p, String sql) throws SQLException {
        try (Statement st = p.raw.createStatement()) {
            st.execute(sql);
        }
    }

    @Test
    void aConnectionWithNothingToUndoSendsNothingAndOnlyItsWarningsAreCleared() throws Exception {
        JdbcPool pool = pool();
        PhysicalConnection p = pool.connect();
        StubConnection stub = stub(p);
        int timeouts = stub.calls("setNetworkTimeout");
        int cleared = stub.calls("clearWarnings");

        ReturnUndo.onReturn(pool, p);

        assertThat(stub.sql()).as("no ROLLBACK, no reset").isEmpty();
        assertThat(stub.calls("rollback")).isZero();
        assertThat(stub.calls("setNetworkTimeout")).as("no bound on an undo that sends nothing").isEqualTo(timeouts);
        assertThat(stub.calls("clearWarnings")).isEqualTo(cleared + 1);
    }

    @Test
    void aTransactionLeftOpenWithAutocommitOffIsRolledBackAndAutocommitPutBack() throws Exception {
        JdbcPool pool = pool();
        PhysicalConnection p = pool.connect();
        StubConnection stub = stub(p);
        Settings wanted = p.current.copy();
        wanted.chooseAutoCommit(false);
        p.apply(wanted, SessionAttribute.AUTO_COMMIT); // as a handle's setAutoCommit(false): marked
        execute(p, "INSERT INTO t VALUES (1)");
        assertThat(p.transactionMayBeOpen()).as("the stub reports the transaction (test premise)").isTrue();

        ReturnUndo.onReturn(pool, p);

        assertThat(stub.sql()).containsExactly("INSERT INTO t VALUES (1)", "ROLLBACK");
        assertThat(stub.calls("rollback")).as("the driver's rollback(), autocommit being off").isEqualTo(1);
        assertThat(stub.getAutoCommit()).isTrue();
        assertThat(p.current.marked).isEmpty();
        assertThat(p.current.autoCommit()).isTrue();
        assertThat(p.serverTransactionOpen()).isFalse();
    }

    @Test
    void aTransactionSqlBeganInAutocommitModeIsRolledBackBySqlNotByTheDriversRollback() throws Exception {
        JdbcPool pool = pool();
        PhysicalConnection p = pool.connect();
        StubConnection stub = stub(p);
        execute(p, "BEGIN");
        execute(p, "INSERT INTO t VALUES (1)");

        ReturnUndo.onReturn(pool, p);

        assertThat(stub.sql()).containsExactly("BEGIN", "INSERT INTO t VALUES (1)", "ROLLBACK");
        assertThat(stub.calls("rollback")).as("refused in autocommit mode, as pgjdbc refuses it").isZero();
        assertThat(p.serverTransactionOpen()).isFalse();
    }

    @Test
    void onlyTheMarkedSettingsArePutBackAndNoRollbackIsSentWithoutATransaction() throws Exception {
        JdbcPool pool = pool();
        PhysicalConnection p = pool.connect();
        StubConnection stub = stub(p);
        Settings wanted = p.current.copy();
        wanted.chooseReadOnly(true);
        p.apply(wanted, SessionAttribute.READ_ONLY);
        // set on the driver behind the pool's back: not marked, so not the reset's business
        p.raw.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
        int isolationCalls = stub.calls("setTransactionIsolation");
        int autoCommitCalls = stub.calls("setAutoCommit");

        ReturnUndo.onReturn(pool, p);

        assertThat(stub.isReadOnly()).as("the marked setting, put back").isFalse();
        assertThat(stub.calls("setTransactionIsolation")).as("an unmarked setting is not sent").isEqualTo(isolationCalls);
        assertThat(stub.calls("setAutoCommit")).isEqualTo(autoCommitCalls);
        assertThat(stub.calls("rollback")).isZero();
        assertThat(stub.sql()).as("no ROLLBACK without a transaction").isEmpty();
        assertThat(p.current.marked).isEmpty();
    }

    @Test
    void aRollbackThatFailsRetiresTheConnectionWithTheSqlState() throws Exception {
        JdbcPool pool = pool();
        PhysicalConnection p = pool.connect();
        execute(p, "BEGIN");
        stub(p).failNext(new SQLException("could not roll back", "XX000"));

        assertThatThrownBy(() -> ReturnUndo.onReturn(pool, p)).isInstanceOf(Retired.class)
                .hasMessage("reset failed: SQLState XX000");
    }

    @Test
    void aRollbackThatLosesTheConnectionRetiresItAsBroken() throws Exception {
        JdbcPool pool = pool();
        PhysicalConnection p = pool.connect();
        execute(p, "BEGIN");
        stub(p).loseNext(new SQLException("terminating connection", "08006"));

        assertThatThrownBy(() -> ReturnUndo.onReturn(pool, p)).isInstanceOf(Retired.class)
                .hasMessage("broken during the reset: 08006");
    }

    @Test
    void aDriverFaultDuringTheResetRetiresTheConnection() throws Exception {
        JdbcPool pool = pool();
        PhysicalConnection p = pool.connect();
        execute(p, "BEGIN");
        stub(p).faultOnNextNetworkTimeout(new NullPointerException("a driver's bug"));

        assertThatThrownBy(() -> ReturnUndo.onReturn(pool, p)).isInstanceOf(Retired.class)
                .hasMessage("reset failed in the driver");
    }

    @Test
    void sessionStateOnADatabaseWithoutASessionResetRetiresTheConnection() throws Exception {
        JdbcPool pool = pool();
        PhysicalConnection p = pool.connect();
        p.noteSessionState();

        assertThatThrownBy(() -> ReturnUndo.onReturn(pool, p)).isInstanceOf(Retired.class)
                .hasMessage("session state cannot be reset on this database");
    }

    @Test
    void sessionStateBehindAPoolerInTransactionModeIsNeverResetButRetired() throws Exception {
        JdbcPool pool = pool(0, Duration.ZERO, Duration.ZERO, true);
        PhysicalConnection p = pool.connect();
        p.noteSessionState();

        assertThatThrownBy(() -> ReturnUndo.onReturn(pool, p)).isInstanceOf(Retired.class)
                .hasMessageStartingWith("session state behind a pooler in transaction mode is not reset");
        assertThat(stub(p).sql()).as("no reset sent to a server connection the pooler may give another").isEmpty();
    }
}
