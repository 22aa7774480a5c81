package dev.loompool.jdbc;

import static dev.loompool.jdbc.BindingTest.query;
import static dev.loompool.jdbc.ReclaimSupport.PERIOD;
import static dev.loompool.jdbc.ReclaimTest.onThreadThatEnds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Owner-exit reclaim (DESIGN.md §4, "Coroutine end"): the handle's owner is the thread that last
 * used it through any call, on the handle or on an object obtained from it (statements, result
 * sets, metadata). A handle whose statements or result sets are still open is reclaimed like any
 * other once nobody has used it, nor any of them, for a full period after its owner ended; they are
 * closed with it. Borrower A leaves its work to B and ends.
 */
class OwnerTouchTest extends StubSupport {

    private final ReclaimSupport reclaimer = new ReclaimSupport();

    /** What A leaves behind: its handle inside a transaction (INSERT 1), and objects from it, all open. */
    record Left(Connection c, LoomConnection handle, Thread a, Statement st, ResultSet rs, PreparedStatement ps,
            DatabaseMetaData meta, ResultSet tables) {
    }

    private static Left leftByAThreadThatEnds(LoomPoolDataSource ds) throws InterruptedException {
        return onThreadThatEnds(() -> {
            Connection c = ds.getConnection();
            c.setAutoCommit(false);
            query(c, "INSERT 1");
            Statement st = c.createStatement();
            ResultSet rs = st.executeQuery("SELECT rows");
            PreparedStatement ps = c.prepareStatement("INSERT ?");
            DatabaseMetaData meta = c.getMetaData();
            ResultSet tables = meta.getTables(null, null, "%", null);
            return new Left(c, c.unwrap(LoomConnection.class), Thread.currentThread(), st, rs, ps, meta, tables);
        });
    }

    /** A left only its open transaction, nothing else open. */
    private static Left transactionLeftByAThreadThatEnds(LoomPoolDataSource ds) throws InterruptedException {
        return onThreadThatEnds(() -> {
            Connection c = ds.getConnection();
            c.setAutoCommit(false);
            query(c, "INSERT 1");
            return new Left(c, c.unwrap(LoomConnection.class), Thread.currentThread(), null, null, null,
                    c.getMetaData(), null);
        });
    }

    @FunctionalInterface
    interface Use {
        void on(Left left) throws SQLException;
    }

    static Stream<Arguments> uses() {
        return Stream.of(
                use("ResultSet.next", l -> l.rs().next()),
                use("ResultSet.getInt", l -> l.rs().getInt(1)),
                use("ResultSet.getString", l -> l.rs().getString("g")),
                use("ResultSet.getObject", l -> l.rs().getObject(1)),
                use("ResultSet.getMetaData", l -> l.rs().getMetaData()),
                use("ResultSet.getStatement", l -> l.rs().getStatement()),
                use("ResultSet.getWarnings", l -> l.rs().getWarnings()),
                use("ResultSet.isClosed", l -> l.rs().isClosed()),
                use("ResultSet.close", l -> l.rs().close()),
                use("Statement.setFetchSize", l -> l.st().setFetchSize(5)),
                use("Statement.getWarnings", l -> l.st().getWarnings()),
                use("Statement.getConnection", l -> l.st().getConnection()),
                use("Statement.isClosed", l -> l.st().isClosed()),
                use("Statement.close", l -> l.st().close()),
                use("PreparedStatement.setInt", l -> l.ps().setInt(1, 2)),
                use("PreparedStatement.setString", l -> l.ps().setString(1, "b")),
                use("PreparedStatement.clearParameters", l -> l.ps().clearParameters()),
                use("PreparedStatement.addBatch", l -> l.ps().addBatch()),
                use("PreparedStatement.getMetaData", l -> l.ps().getMetaData()),
                use("PreparedStatement.getParameterMetaData", l -> l.ps().getParameterMetaData()),
                use("PreparedStatement.close", l -> l.ps().close()),
                use("DatabaseMetaData.getDatabaseProductName", l -> l.meta().getDatabaseProductName()),
                use("DatabaseMetaData.getConnection", l -> l.meta().getConnection()),
                use("metadata ResultSet.next", l -> l.tables().next()),
                use("metadata ResultSet.close", l -> l.tables().close()),
                use("Connection.getMetaData", l -> l.c().getMetaData()),
                use("Connection.isClosed", l -> l.c().isClosed()),
                use("Connection.unwrap", l -> l.c().unwrap(LoomConnection.class)),
                use("Connection.isWrapperFor", l -> l.c().isWrapperFor(LoomConnection.class)),
                use("LoomConnection.pin", l -> l.handle().pin()));
    }

    private static Arguments use(String name, Use use) {
        return Arguments.of(name, use);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("uses")
    void everyCallOnTheHandleOrAnObjectFromItMakesTheCallerItsUser(String name, Use use) throws Exception {
        Left left = leftByAThreadThatEnds(dataSource());
        assertThat(left.handle().ownerThread()).isSameAs(left.a());
        AtomicReference<Thread> b = new AtomicReference<>();
        onThreadThatEnds(() -> {
            b.set(Thread.currentThread());
            use.on(left);
            return null;
        });
        assertThat(left.handle().ownerThread()).as(name).isSameAs(b.get());
    }

    @Test
    void aHandleLeftWithOpenStatementsAndResultSetsIsReclaimedAfterAFullQuietPeriodAndTheyRefuseLateCalls()
            throws Exception {
        LoomPoolDataSource ds = reclaimer.reclaiming(dataSource());
        Left left = leftByAThreadThatEnds(ds);
        assertThat(stub(1).openStatements()).isPositive();
        ds.scanNow(); // A is seen gone
        reclaimer.clock.advance(PERIOD.minusMillis(50));
        ds.scanNow();
        assertThat(ds.getReclaimedConnections()).as("not before a full quiet period").isZero();
        reclaimer.clock.advance(PERIOD);
        ds.scanNow();
        assertThat(ds.getReclaimedConnections()).as("nobody used it, nor its statements, for a full period")
                .isEqualTo(1);
        assertThat(stub(1).sql()).containsExactly("INSERT 1", "SELECT rows", "ROLLBACK");
        assertThat(List.of(left.st().isClosed(), left.rs().isClosed(), left.ps().isClosed(), left.tables().isClosed()))
                .as("closed with the handle").containsOnly(true);
        assertThat(ds.getPool().stats().inUse()).isZero();
        assertThat(ds.getOpenHandles()).isZero();
        List<ThrowingCallable> lateCalls = List.of(() -> left.rs().next(), () -> left.rs().getInt(1),
                () -> left.st().execute("SELECT 1"), () -> left.ps().setInt(1, 2), () -> left.ps().executeUpdate(),
                () -> left.tables().next(), () -> left.meta().getTables(null, null, "%", null),
                () -> left.c().createStatement(), () -> left.c().commit());
        for (ThrowingCallable late : lateCalls) {
            assertThatThrownBy(late).hasMessageStartingWith("connection was reclaimed: ");
        }
        left.rs().close(); // closing what is closed stays quiet
        left.st().close();
        left.ps().close();
        left.tables().close();
        left.c().close();
        assertThat(stub(1).sql()).as("no late call reached the connection").containsExactly("INSERT 1",
                "SELECT rows", "ROLLBACK");
        assertThat(ds.getReclaimedConnections()).isEqualTo(1);
    }

    @Test
    void aThreadThatReadsAndClosesTheResultSetBecomesTheUserAndOnlyItsEndCounts() throws Exception {
        LoomPoolDataSource ds = reclaimer.reclaiming(dataSource());
        Left left = leftByAThreadThatEnds(ds);
        ds.scanNow(); // A is seen gone
        reclaimer.clock.advance(PERIOD.dividedBy(2));
        onThreadThatEnds(() -> { // B reads what A left, closes it all, and ends
            left.rs().next();
            left.rs().getInt(1);
            left.rs().close();
            left.st().close();
            left.ps().close();
            left.tables().close();
            return null;
        });
        reclaimer.clock.advance(PERIOD.dividedBy(2).plusMillis(50)); // a full period since A was seen gone
        ds.scanNow();
        assertThat(ds.getReclaimedConnections()).as("B used it in the period; its end was only seen now").isZero();
        reclaimer.clock.advance(PERIOD);
        ds.scanNow();
        assertThat(ds.getReclaimedConnections()).as("a full period after B, its last user, was seen gone").isEqualTo(1);
        assertThat(stub(1).sql()).containsExactly("INSERT 1", "SELECT rows", "ROLLBACK");
        assertThat(ds.getOpenHandles()).isZero();
    }

    @Test
    void aPreparedStatementHandedOverIsFilledAndRunByAnotherThreadAndCommitted() throws Exception {
        LoomPoolDataSource ds = reclaimer.reclaiming(dataSource());
        Left left = onThreadThatEnds(() -> {
            Connection c = ds.getConnection();
            c.setAutoCommit(false);
            query(c, "INSERT 1");
            return new Left(c, c.unwrap(LoomConnection.class), Thread.currentThread(), null, null,
                    c.prepareStatement("INSERT ?"), null, null);
        });
        ds.scanNow(); // A is seen gone
        reclaimer.clock.advance(PERIOD.dividedBy(2));
        ds.scanNow();
        left.ps().setInt(1, 2); // B, this thread, fills it in within the quiet period…
        assertThat(left.handle().ownerThread()).isSameAs(Thread.currentThread());
        reclaimer.clock.advance(PERIOD.multipliedBy(4));
        ds.scanNow();
        left.ps().executeUpdate(); // …runs it…
        left.ps().close(); // …and closes it: B, alive, is the user
        reclaimer.clock.advance(PERIOD.multipliedBy(4));
        ds.scanNow();
        ds.scanNow();
        assertThat(ds.getReclaimedConnections()).isZero();
        left.c().commit();
        left.c().close();
        assertThat(stub(1).sql()).containsExactly("INSERT 1", "INSERT ?", "COMMIT");
    }

    @Test
    void aThreadThatUsesOnlyTheMetadataBecomesTheUser() throws Exception {
        LoomPoolDataSource ds = reclaimer.reclaiming(dataSource());
        Left left = transactionLeftByAThreadThatEnds(ds);
        ds.scanNow(); // A is seen gone
        reclaimer.clock.advance(PERIOD.dividedBy(2));
        onThreadThatEnds(() -> {
            left.meta().getDatabaseProductName();
            try (ResultSet tables = left.meta().getTables(null, null, "%", null)) {
                tables.next();
            }
            return null;
        });
        reclaimer.clock.advance(PERIOD.dividedBy(2).plusMillis(50));
        ds.scanNow();
        assertThat(ds.getReclaimedConnections()).as("B used it in the period").isZero();
        query(left.c(), "INSERT 2"); // and this thread took it over from B
        reclaimer.clock.advance(PERIOD.multipliedBy(4));
        ds.scanNow();
        ds.scanNow();
        left.c().commit();
        left.c().close();
        assertThat(stub(1).sql()).containsExactly("INSERT 1", "INSERT 2", "COMMIT");
        assertThat(ds.getReclaimedConnections()).isZero();
    }
}
