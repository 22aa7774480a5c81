package dev.loompool.jdbc;

import static dev.loompool.jdbc.PinSemanticsSupport.B_ROW;
import static dev.loompool.jdbc.PinSemanticsSupport.assertNotPinned;
import static dev.loompool.jdbc.PinSemanticsSupport.loom;
import static dev.loompool.jdbc.PinSemanticsSupport.onAnotherThread;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.jdbc.PinSemanticsSupport.BView;
import dev.loompool.jdbc.PinSemanticsSupport.Probe;
import dev.loompool.jdbc.PinSemanticsSupport.Scenario;
import dev.loompool.jdbc.PinSemanticsSupport.Shape;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The pin-semantics suite's first layer, which reads the same on every database: each row of the
 * pin table (DESIGN.md §4, "Binding"): a transaction, a statement, session state, an explicit pin,
 * an unwrap or a driver object, a framework transaction keeps another borrower out until it ends.
 * A subclass names the database and hands over its fixture, and its own tests cover what only its
 * dialect can do. How pins end is the other half, {@link PinReleaseAndResetSuite}: a suite of its
 * own over the same fixture, run by its own subclass per database (it extends nothing of ours).
 */
abstract class PinSemanticsSuite {

    /** The table, the pools and borrower B of this database's dialect. */
    @RegisterExtension
    final PinSemanticsSupport pin;

    PinSemanticsSuite(PinSemanticsSupport pin) {
        this.pin = pin;
    }

    /** SQL that leaves state on the session, the plain way every classifier knows. */
    abstract String sessionStateSql();

    /** What {@link #sessionStateSql()} left, as a query of it. */
    abstract Probe sessionStateProbe();

    /** The driver's own connection interface, which {@code unwrap} hands out. */
    abstract Class<?> driverConnectionType();

    /** The driver's own statement and result-set types, which their {@code unwrap} hands out. */
    abstract Class<?> driverStatementType();

    abstract Class<?> driverResultSetType();

    /** A query whose first column the driver reads into an object that lives on the connection (a LOB or an array). */
    abstract String driverObjectQuery();

    /** Reads that object the way the dialect's users do ({@code getArray}, {@code getBlob}, {@code getObject}). */
    abstract Object readDriverObject(ResultSet rs) throws SQLException;

    // ---- the pin table, row by row -----------------------------------------------------------------

    @Test
    void aTransactionKeepsAnotherBorrowerOutUntilCommitThenTheHandleBindsAgainForTheNext() throws Exception {
        LoomPoolDataSource ds = pin.dataSource(1);
        try (Connection a = ds.getConnection()) {
            long aBackend = pin.backend(a);
            a.setAutoCommit(false);
            pin.run(a, pin.insert(1));
            assertThat(loom(a).pinReasons()).contains(PinReason.TRANSACTION);
            pin.assertBMustWait(ds, "its transaction (setAutoCommit(false)) is open");
            a.commit();
            assertNotPinned(a, "commit()");
            pin.assertCleanAutocommitSession(pin.borrowB(ds, List.of()), aBackend);
            pin.run(a, pin.insert(2)); // still autoCommit false: a new transaction, rolled back below
            assertThat(loom(a).pinReasons()).contains(PinReason.TRANSACTION);
            a.rollback();
        }
        pin.assertCommitted(ds, List.of(1, B_ROW));
    }

    @Test
    void workLeftUncommittedWhenTheHandleClosesIsRolledBackAndTheNextBorrowerStartsInAutocommit() throws Exception {
        Scenario uncommitted = c -> {
            c.setAutoCommit(false);
            pin.run(c, pin.insert(1), pin.insert(2));
        };
        assertThat(pin.reference(uncommitted)).as("the plain driver (test premise)").isEmpty();
        LoomPoolDataSource ds = pin.dataSource(1);
        long aBackend;
        try (Connection a = ds.getConnection()) {
            aBackend = pin.backend(a);
            uncommitted.run(a);
        }
        assertThat(pin.committed()).as("A's uncommitted rows after A closed").isEmpty();
        pin.assertCleanAutocommitSession(pin.borrowB(ds, List.of()), aBackend);
        pin.assertCommitted(ds, List.of(B_ROW));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void aPlainSqlBeginOpensATransactionThatStaysWithA(Shape shape) throws Exception {
        pin.transactionScenario(shape, List.of(), "BEGIN", pin.insert(1));
    }

    @Test
    void anOpenStatementKeepsAnotherBorrowerOutUntilItIsClosed() throws Exception {
        LoomPoolDataSource ds = pin.dataSource(1);
        try (Connection a = ds.getConnection()) {
            long aBackend = pin.backend(a);
            Statement st = a.createStatement();
            // RETURNING: without it the insert's id would also keep the connection for the next statement (STATEMENT_VALUE)
            st.execute(pin.insert(1) + " RETURNING id");
            assertThat(loom(a).pinReasons()).containsExactly(PinReason.STATEMENT);
            pin.assertBMustWait(ds, "a statement of A's is open");
            st.close();
            assertNotPinned(a, "closing its only statement");
            pin.assertCleanAutocommitSession(pin.borrowB(ds, List.of()), aBackend);
        }
        pin.assertCommitted(ds, List.of(1, B_ROW));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void sessionStateKeepsTheConnectionUntilCloseAndTheNextBorrowerSeesNoneOfIt(Shape shape) throws Exception {
        pin.sessionScenario(shape, sessionStateProbe(), sessionStateSql());
    }

    @Test
    void sessionStateIsReportedAsAPinUntilTheHandleCloses() throws Exception {
        LoomPoolDataSource ds = pin.dataSource(1);
        try (Connection a = ds.getConnection()) {
            pin.run(a, pin.insert(1), sessionStateSql()); // the insert's id is kept only until the next statement
            assertThat(loom(a).pinReasons()).containsExactly(PinReason.SESSION_STATE);
        }
        pin.assertCommitted(ds, List.of(1));
    }

    @Test
    void anExplicitPinKeepsAnotherBorrowerOutUntilUnpin() throws Exception {
        LoomPoolDataSource ds = pin.dataSource(1);
        try (Connection a = ds.getConnection()) {
            loom(a).pin();
            long aBackend = pin.backend(a);
            assertThat(loom(a).pinReasons()).containsExactly(PinReason.EXPLICIT);
            pin.assertBMustWait(ds, "it is pinned explicitly");
            loom(a).unpin();
            assertNotPinned(a, "unpin()");
            pin.assertCleanAutocommitSession(pin.borrowB(ds, List.of()), aBackend);
        }
        pin.assertCommitted(ds, List.of(B_ROW));
    }

    @Test
    void unwrappingToTheDriversConnectionPinsUntilTheHandleCloses() throws Exception {
        LoomPoolDataSource ds = pin.dataSource(1);
        long aBackend;
        try (Connection a = ds.getConnection()) {
            aBackend = pin.backend(a);
            assertThat(a.unwrap(driverConnectionType())).isInstanceOf(driverConnectionType());
            assertThat(loom(a).pinReasons()).containsExactly(PinReason.EXPLICIT);
            pin.assertBMustWait(ds, "A holds the driver's connection object");
        }
        BView b = pin.borrowB(ds, List.of());
        assertThat(b.backend()).as("what went through the driver's object is unknown: closed, not reused")
                .isNotEqualTo(aBackend);
        assertThat(b.rowCommittedAtOnce()).isTrue();
        pin.assertCommitted(ds, List.of(B_ROW));
    }

    @Test
    void unwrappingAStatementToTheDriversPinsUntilTheHandleClosesAndTheConnectionIsNotReused() throws Exception {
        LoomPoolDataSource ds = pin.dataSource(1);
        long aBackend;
        try (Connection a = ds.getConnection()) {
            aBackend = pin.backend(a);
            Object driverStatement;
            try (Statement st = a.createStatement()) {
                assertThat(st.unwrap(Statement.class)).as("unwrap to JDBC's own interface").isSameAs(st);
                assertThat(st.isWrapperFor(driverStatementType())).isTrue();
                driverStatement = st.unwrap(driverStatementType());
            }
            assertThat(driverStatement).isInstanceOf(driverStatementType());
            assertThat(loom(a).pinReasons()).as("its getConnection() is the physical connection")
                    .containsExactly(PinReason.EXPLICIT);
            pin.assertBMustWait(ds, "A holds the driver's statement object");
        }
        BView b = pin.borrowB(ds, List.of());
        assertThat(b.backend()).as("what went through the driver's object is unknown: closed, not reused")
                .isNotEqualTo(aBackend);
        pin.assertCommitted(ds, List.of(B_ROW));
    }

    @Test
    void unwrappingAResultSetToTheDriversPinsUntilTheHandleClosesAndTheConnectionIsNotReused() throws Exception {
        LoomPoolDataSource ds = pin.dataSource(1);
        long aBackend;
        try (Connection a = ds.getConnection()) {
            aBackend = pin.backend(a);
            try (Statement st = a.createStatement(); ResultSet rs = st.executeQuery(pin.sql("SELECT 1"))) {
                assertThat(rs.unwrap(ResultSet.class)).as("unwrap to JDBC's own interface").isSameAs(rs);
                assertThat(rs.unwrap(driverResultSetType())).isInstanceOf(driverResultSetType());
            }
            assertThat(loom(a).pinReasons()).containsExactly(PinReason.EXPLICIT);
            pin.assertBMustWait(ds, "A holds the driver's result set object");
        }
        BView b = pin.borrowB(ds, List.of());
        assertThat(b.backend()).isNotEqualTo(aBackend);
        pin.assertCommitted(ds, List.of(B_ROW));
    }

    @Test
    void aDriverObjectReadFromAResultSetKeepsAnotherBorrowerOutUntilTheHandleCloses() throws Exception {
        LoomPoolDataSource ds = pin.dataSource(1);
        try (Connection a = ds.getConnection()) {
            long aBackend = pin.backend(a);
            Object value;
            try (Statement st = a.createStatement(); ResultSet rs = st.executeQuery(pin.sql(driverObjectQuery()))) {
                assertThat(rs.next()).isTrue();
                value = readDriverObject(rs);
            }
            assertThat(value).as("the driver's object (test premise)").isNotNull();
            assertThat(loom(a).pinReasons()).as("the object may still talk to its connection")
                    .containsExactly(PinReason.EXPLICIT);
            pin.assertBMustWait(ds, "A holds a LOB or array of the driver's");
            a.close();
            pin.assertCleanAutocommitSession(pin.borrowB(ds, List.of()), aBackend);
        }
        pin.assertCommitted(ds, List.of(B_ROW));
    }

    /** Its connection went back with the statement: whatever is bound later may be another one. */
    @Test
    void aResultSetOfAClosedStatementLendsNothingNeitherUnboundNorFromTheConnectionBoundLater() throws Exception {
        LoomPoolDataSource ds = pin.dataSource(1);
        try (Connection a = ds.getConnection()) {
            Statement st = a.createStatement();
            ResultSet rs = st.executeQuery(pin.sql("SELECT 1"));
            st.close();
            assertThatThrownBy(() -> rs.unwrap(driverResultSetType())).as("refused, not a NullPointerException")
                    .isInstanceOf(SQLException.class);
            assertNotPinned(a, "a refused unwrap");
            a.setAutoCommit(false);
            pin.run(a, pin.insert(1)); // bound again
            assertThatThrownBy(() -> rs.unwrap(driverResultSetType())).isInstanceOf(SQLException.class);
            assertThat(loom(a).pinReasons()).as("the transaction's; the table generates no key, so nothing is kept for the next statement")
                    .containsExactly(PinReason.TRANSACTION);
            a.rollback();
        }
        pin.assertCommitted(ds, List.of());
    }

    /** pgjdbc hands out the type map and client info it keeps: a put into them would reach B. */
    @Test
    void theTypeMapAndClientInfoAHandleReadsAreCopiesSoNothingPutIntoThemReachesB() throws Exception {
        LoomPoolDataSource ds = pin.dataSource(1);
        try (Connection a = ds.getConnection()) {
            a.getTypeMap().put("leak_type", String.class);
            a.getClientInfo().setProperty("ApplicationName", "leak-A");
            assertNotPinned(a, "reading the type map and client info");
        }
        String bSaw = onAnotherThread(() -> {
            try (Connection b = ds.getConnection()) {
                return b.getTypeMap() + " " + b.getClientInfo();
            }
        });
        assertThat(bSaw).doesNotContain("leak_type").doesNotContain("leak-A");
        pin.assertCommitted(ds, List.of());
    }

    @Test
    void aFrameworkTransactionKeepsAnotherBorrowerOutUntilItEnds() throws Exception {
        LoomPoolDataSource ds = pin.dataSource(1);
        try (Connection a = ds.getConnection()) {
            loom(a).beginFrameworkTransaction();
            long aBackend = pin.backend(a);
            assertThat(loom(a).pinReasons()).containsExactly(PinReason.FRAMEWORK_TRANSACTION);
            pin.assertBMustWait(ds, "a framework transaction is active on it");
            loom(a).endFrameworkTransaction();
            assertNotPinned(a, "endFrameworkTransaction()");
            pin.assertCleanAutocommitSession(pin.borrowB(ds, List.of()), aBackend);
        }
        pin.assertCommitted(ds, List.of(B_ROW));
    }
}
