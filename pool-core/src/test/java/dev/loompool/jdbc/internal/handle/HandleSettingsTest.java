package dev.loompool.jdbc.internal.handle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.internal.driver.SessionAttribute;
import dev.loompool.jdbc.internal.physical.JdbcPool;
import dev.loompool.stub.StubConnection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * A handle's JDBC settings (DESIGN.md §4, "Handle state", "Getters tell the truth"), as
 * {@link HandleSettings} keeps them: a setter records the choice, applies it at once if the handle
 * is bound, and the choice is replayed on every connection the handle binds later, its schema
 * first; a getter answers from the bound connection, else the handle's choice, else the pool's
 * defaults, without binding, and asks the driver once SQL changed the session.
 */
class HandleSettingsTest extends StubHandleFixture {

    @Test
    void aSetterOnAnUnboundHandleRecordsTheChoiceWithoutBindingAndItsGetterAnswersIt() throws Exception {
        JdbcPool pool = pool();
        LogicalConnection h = open(pool);

        h.setReadOnly(true);
        h.setHoldability(ResultSet.CLOSE_CURSORS_AT_COMMIT);
        assertThat(db.connects()).as("neither setter connected").isZero();
        h.setCatalog("other"); // whether the driver has catalogs at all is learned once, from a connection not kept

        assertThat(h.physical).isNull();
        assertThat(h.own.marked).containsExactlyInAnyOrder(SessionAttribute.READ_ONLY, SessionAttribute.CATALOG,
                SessionAttribute.HOLDABILITY);
        assertThat(h.isReadOnly()).isTrue();
        assertThat(h.getCatalog()).isEqualTo("other");
        assertThat(h.getHoldability()).isEqualTo(ResultSet.CLOSE_CURSORS_AT_COMMIT);
        assertThat(db.connects()).as("the getters did not connect").isEqualTo(1);
    }

    @Test
    void anUnboundGetterWithoutAChoiceAnswersThePoolsDefaultsLearnedFromAConnectionItDoesNotKeep() throws Exception {
        JdbcPool pool = pool();
        LogicalConnection h = open(pool);

        assertThat(h.getCatalog()).isEqualTo("stub"); // the stub driver's own default
        assertThat(db.connects()).as("one connection made to learn them").isEqualTo(1);
        assertThat(h.physical).as("and not kept").isNull();
        assertThat(pool.pool.stats().idle()).isEqualTo(1);

        db.connection(1).setCatalog("left-by-another"); // the idle connection's current value is not the default
        LogicalConnection next = open(pool);
        assertThat(next.getCatalog()).isEqualTo("stub");
        assertThat(db.connects()).isEqualTo(1);
        assertThat(next.physical).isNull();
    }

    @Test
    void aSetterOnABoundHandleReachesTheDriverAtOnceAndItsGetterAnswersFromMemory() throws Exception {
        LogicalConnection h = open(pool());
        Statement pin = h.createStatement(); // an open statement keeps the connection bound
        StubConnection stub = db.connection(1);
        int reads = stub.calls("getCatalog");

        h.setCatalog("other");
        assertThat(stub.calls("setCatalog")).as("applied now").isEqualTo(1);
        assertThat(h.getCatalog()).isEqualTo("other");

        assertThat(stub.calls("getCatalog")).as("not asked: nothing but the pool changed the session").isEqualTo(reads);
        assertThat(stub.getCatalog()).isEqualTo("other");
        pin.close();
    }

    @Test
    void onceSqlChangedTheSessionTheGetterAsksTheDriver() throws Exception {
        LogicalConnection h = open(pool());
        execute(h, "USE other"); // session state: the handle keeps its connection until close
        assertThat(h.physical).as("premise: pinned by session state").isNotNull();
        StubConnection stub = db.connection(1);
        stub.setCatalog("other"); // what the USE did on a real server; the stub only logs it

        assertThat(h.getCatalog()).isEqualTo("other");
        assertThat(h.physical.current().catalog()).as("what the pool believes follows").isEqualTo("other");
    }

    @Test
    void theHandlesChoicesAreReplayedOnEveryConnectionItBinds() throws Exception {
        JdbcPool pool = pool();
        LogicalConnection h = open(pool);
        h.setCatalog("other");
        h.setReadOnly(true);

        Statement first = h.createStatement(); // binds
        StubConnection stub = db.latest();
        assertThat(stub.getCatalog()).isEqualTo("other");
        assertThat(stub.isReadOnly()).isTrue();
        first.close();
        assertThat(h.physical).as("premise: released").isNull();
        assertThat(stub.getCatalog()).as("reset on return").isEqualTo("stub");
        assertThat(stub.isReadOnly()).isFalse();

        Statement second = h.createStatement(); // binds again: the same connection, idle
        assertThat(db.latest()).isSameAs(stub);
        assertThat(stub.getCatalog()).as("replayed").isEqualTo("other");
        assertThat(stub.isReadOnly()).isTrue();
        second.close();
    }

    @Test
    void theSchemaIsReplayedBeforeAutocommitGoesOffSoThatNoTransactionHoldsIt() throws Exception {
        JdbcPool pool = pool();
        LogicalConnection h = open(pool);
        h.setSchema("app");
        h.setAutoCommit(false); // binds, in a transaction from now
        h.commit(); // ends it: the connection goes back, reset
        assertThat(h.physical).as("premise: released").isNull();
        StubConnection stub = db.connection(1);
        assertThat(stub.getAutoCommit()).as("premise: reset").isTrue();
        int commits = stub.calls("commit");

        assertThat(h.getAutoCommit()).isFalse(); // a transaction begins: binds, and replays
        assertThat(h.physical).isNotNull();

        assertThat(stub.getSchema()).isEqualTo("app");
        assertThat(stub.getAutoCommit()).isFalse();
        assertThat(stub.calls("commit")).as("set while autocommit was on: nothing to commit").isEqualTo(commits);
        assertThat(h.physical.schemaUncertain()).isFalse();
        h.rollback();
    }

    @Test
    void onAPoolWhoseAutocommitIsOffTheReplayedSchemaIsCommittedBeforeTheHandlesWorkBegins() throws Exception {
        JdbcPool pool = pool(autoCommitOff());
        LogicalConnection learner = open(pool);
        assertThat(learner.getCatalog()).isEqualTo("stub"); // the pool learns its defaults
        learner.close();
        StubConnection stub = db.connection(1);
        LogicalConnection h = open(pool);
        h.setSchema("app"); // autocommit off: it begins the transaction, as the plain driver's SET does
        h.commit(); // committed: the handle's choice from now on, replayed on its next binding
        assertThat(h.physical).as("premise: released").isNull();
        int before = stub.sql().size();

        execute(h, "INSERT INTO t VALUES (1)");

        assertThat(db.connects()).as("premise: the same connection").isEqualTo(1);
        assertThat(stub.getSchema()).isEqualTo("app");
        assertThat(stub.sql().subList(before, stub.sql().size())).as("the SET committed alone, before the handle's work")
                .containsExactly("COMMIT", "INSERT INTO t VALUES (1)");
        assertThat(h.physical.schemaUncertain()).as("settled by that commit").isFalse();
        h.rollback();
    }
}
