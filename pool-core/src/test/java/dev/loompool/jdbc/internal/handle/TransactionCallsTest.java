package dev.loompool.jdbc.internal.handle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.jdbc.internal.physical.JdbcPool;
import dev.loompool.stub.StubConnection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * A handle's {@code commit()} and {@code rollback()} (DESIGN.md §4, "Errors" and the transaction
 * pin), as {@link TransactionCalls} runs them: with autocommit on and nothing bound the driver
 * answers, refusing as pgjdbc refuses (the stub is strict); with autocommit off and nothing bound
 * there is nothing to end; bound, they end the transaction pin and the connection goes back; and a
 * transaction lost with its connection cannot be committed, only rolled back.
 */
class TransactionCallsTest extends StubHandleFixture {

    private static final String INSERT = "INSERT INTO t VALUES (1)";

    private static String sqlState(Throwable e) {
        return ((SQLException) e).getSQLState();
    }

    @Test
    void commitWithAutocommitOnAndNothingBoundIsRefusedAsTheDriverRefusesIt() throws Exception {
        JdbcPool pool = pool();
        LogicalConnection h = open(pool);

        assertThatThrownBy(h::commit).isInstanceOf(SQLException.class)
                .hasMessage("Cannot commit when autoCommit is enabled.")
                .satisfies(e -> assertThat(sqlState(e)).isEqualTo("25P01"));

        assertThat(db.connection(1).calls("commit")).as("the driver answered").isEqualTo(1);
        assertThat(h.physical).as("nothing of the call holds the connection").isNull();
        assertThat(pool.pool.stats().inUse()).isZero();
    }

    @Test
    void rollbackWithAutocommitOnAndNothingBoundIsRefusedAsTheDriverRefusesIt() throws Exception {
        JdbcPool pool = pool();
        LogicalConnection h = open(pool);

        assertThatThrownBy(h::rollback).isInstanceOf(SQLException.class)
                .hasMessage("Cannot rollback when autoCommit is enabled.")
                .satisfies(e -> assertThat(sqlState(e)).isEqualTo("25P01"));

        assertThat(db.connection(1).calls("rollback")).isEqualTo(1);
        assertThat(h.physical).isNull();
        assertThat(pool.pool.stats().inUse()).isZero();
    }

    @Test
    void withAutocommitOffAndNothingBoundThereIsNoTransactionToEndAndNothingIsSent() throws Exception {
        JdbcPool pool = pool(autoCommitOff());
        LogicalConnection learner = open(pool);
        assertThat(learner.getCatalog()).isEqualTo("stub"); // the pool learns its defaults
        learner.close();
        StubConnection stub = db.connection(1);
        int commits = stub.calls("commit");
        int rollbacks = stub.calls("rollback");
        LogicalConnection h = open(pool);

        h.commit();
        h.rollback();

        assertThat(stub.calls("commit")).isEqualTo(commits);
        assertThat(stub.calls("rollback")).isEqualTo(rollbacks);
        assertThat(h.physical).isNull();
        assertThat(db.connects()).isEqualTo(1);
    }

    @Test
    void aBoundCommitEndsTheTransactionAndTheConnectionGoesBack() throws Exception {
        JdbcPool pool = pool();
        LogicalConnection h = open(pool);
        h.setAutoCommit(false);
        execute(h, INSERT);
        assertThat(h.physical).as("premise: pinned by the transaction").isNotNull();

        h.commit();

        StubConnection stub = db.connection(1);
        assertThat(stub.sql()).containsExactly(INSERT, "COMMIT");
        assertThat(h.physical).isNull();
        assertThat(pool.pool.stats().idle()).isEqualTo(1);
        assertThat(h.own.autoCommit()).as("the handle's choice stands").isFalse();
    }

    @Test
    void aBoundRollbackEndsTheTransactionAndTheConnectionGoesBack() throws Exception {
        JdbcPool pool = pool();
        LogicalConnection h = open(pool);
        h.setAutoCommit(false);
        execute(h, INSERT);

        h.rollback();

        assertThat(db.connection(1).sql()).containsExactly(INSERT, "ROLLBACK");
        assertThat(h.physical).isNull();
        assertThat(pool.pool.stats().idle()).isEqualTo(1);
    }

    @Test
    void aCommitTheDriverRefusesOnABoundHandleIsThrownAndTheStatementPinStillHolds() throws Exception {
        JdbcPool pool = pool();
        LogicalConnection h = open(pool);
        Statement open = h.createStatement(); // autocommit on, bound by the open statement

        assertThatThrownBy(h::commit).isInstanceOf(SQLException.class)
                .satisfies(e -> assertThat(sqlState(e)).isEqualTo("25P01"));

        assertThat(h.physical).as("still pinned by its statement").isNotNull();
        open.close();
        assertThat(h.physical).isNull();
    }

    @Test
    void aTransactionLostWithItsConnectionCannotBeCommittedOnlyRolledBack() throws Exception {
        JdbcPool pool = pool();
        LogicalConnection h = open(pool);
        h.setAutoCommit(false);
        execute(h, INSERT);
        db.connection(1).loseNext(new SQLException("terminating connection", "08006"));
        assertThatThrownBy(() -> execute(h, INSERT)).hasMessage("terminating connection");
        assertThat(h.physical).as("premise: the broken connection dropped").isNull();

        assertThatThrownBy(h::commit).isInstanceOf(SQLException.class)
                .hasMessage("pool '" + pool.name + "': cannot commit, the transaction was lost when its connection "
                        + "broke; roll back")
                .satisfies(e -> assertThat(sqlState(e)).isEqualTo("08003"));
        assertThatThrownBy(() -> h.setAutoCommit(true)).as("switching autocommit on would commit it")
                .hasMessageContaining("cannot commit, the transaction was lost");

        h.rollback(); // what the loss asks for: the server rolled back as the connection went

        assertThat(db.connects()).as("no connection needed for it").isEqualTo(1);
        assertThat(h.lostTransaction).isFalse();
        h.commit(); // a new transaction, with nothing in it yet: nothing to end
        assertThat(db.connects()).isEqualTo(1);
    }
}
