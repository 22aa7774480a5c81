package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The scenarios of the pin-semantics suite that read the same on every database: each row of the
 * pin table (DESIGN.md §4), the lost rollback, the reset that must not destroy healthy
 * connections, and the pins that must end with their cause (issue 10, cases 1, 5 and 6).
 * A subclass names the database; its own tests cover what only its dialect can do.
 */
abstract class PinSemanticsSuite extends PinSemanticsSupport {

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
        LoomPoolDataSource ds = dataSource(1);
        try (Connection a = ds.getConnection()) {
            long aBackend = backend(a);
            a.setAutoCommit(false);
            run(a, insert(1));
            assertThat(loom(a).pinReasons()).contains(PinReason.TRANSACTION);
            assertBMustWait(ds, "its transaction (setAutoCommit(false)) is open");
            a.commit();
            assertNotPinned(a, "commit()");
            assertCleanAutocommitSession(borrowB(ds, List.of()), aBackend);
            run(a, insert(2)); // still autoCommit false: a new transaction, rolled back below
            assertThat(loom(a).pinReasons()).contains(PinReason.TRANSACTION);
            a.rollback();
        }
        assertCommitted(ds, List.of(1, B_ROW));
    }

    @Test
    void workLeftUncommittedWhenTheHandleClosesIsRolledBackAndTheNextBorrowerStartsInAutocommit() throws Exception {
        Scenario uncommitted = c -> {
            c.setAutoCommit(false);
            run(c, insert(1), insert(2));
        };
        assertThat(reference(uncommitted)).as("the plain driver (test premise)").isEmpty();
        LoomPoolDataSource ds = dataSource(1);
        long aBackend;
        try (Connection a = ds.getConnection()) {
            aBackend = backend(a);
            uncommitted.run(a);
        }
        assertThat(committed()).as("A's uncommitted rows after A closed").isEmpty();
        assertCleanAutocommitSession(borrowB(ds, List.of()), aBackend);
        assertCommitted(ds, List.of(B_ROW));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void aPlainSqlBeginOpensATransactionThatStaysWithA(Shape shape) throws Exception {
        transactionScenario(shape, List.of(), "BEGIN", insert(1));
    }

    @Test
    void anOpenStatementKeepsAnotherBorrowerOutUntilItIsClosed() throws Exception {
        LoomPoolDataSource ds = dataSource(1);
        try (Connection a = ds.getConnection()) {
            long aBackend = backend(a);
            Statement st = a.createStatement();
            // RETURNING: without it the insert's id would also keep the connection for the next statement (STATEMENT_VALUE)
            st.execute(insert(1) + " RETURNING id");
            assertThat(loom(a).pinReasons()).containsExactly(PinReason.STATEMENT);
            assertBMustWait(ds, "a statement of A's is open");
            st.close();
            assertNotPinned(a, "closing its only statement");
            assertCleanAutocommitSession(borrowB(ds, List.of()), aBackend);
        }
        assertCommitted(ds, List.of(1, B_ROW));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void sessionStateKeepsTheConnectionUntilCloseAndTheNextBorrowerSeesNoneOfIt(Shape shape) throws Exception {
        sessionScenario(shape, sessionStateProbe(), sessionStateSql());
    }

    @Test
    void sessionStateIsReportedAsAPinUntilTheHandleCloses() throws Exception {
        LoomPoolDataSource ds = dataSource(1);
        try (Connection a = ds.getConnection()) {
            run(a, insert(1), sessionStateSql()); // the insert's id is kept only until the next statement
            assertThat(loom(a).pinReasons()).containsExactly(PinReason.SESSION_STATE);
        }
        assertCommitted(ds, List.of(1));
    }

    @Test
    void anExplicitPinKeepsAnotherBorrowerOutUntilUnpin() throws Exception {
        LoomPoolDataSource ds = dataSource(1);
        try (Connection a = ds.getConnection()) {
            loom(a).pin();
            long aBackend = backend(a);
            assertThat(loom(a).pinReasons()).containsExactly(PinReason.EXPLICIT);
            assertBMustWait(ds, "it is pinned explicitly");
            loom(a).unpin();
            assertNotPinned(a, "unpin()");
            assertCleanAutocommitSession(borrowB(ds, List.of()), aBackend);
        }
        assertCommitted(ds, List.of(B_ROW));
    }

    @Test
    void unwrappingToTheDriversConnectionPinsUntilTheHandleCloses() throws Exception {
        LoomPoolDataSource ds = dataSource(1);
        long aBackend;
        try (Connection a = ds.getConnection()) {
            aBackend = backend(a);
            assertThat(a.unwrap(driverConnectionType())).isInstanceOf(driverConnectionType());
            assertThat(loom(a).pinReasons()).containsExactly(PinReason.EXPLICIT);
            assertBMustWait(ds, "A holds the driver's connection object");
        }
        BView b = borrowB(ds, List.of());
        assertThat(b.backend()).as("what went through the driver's object is unknown: closed, not reused")
                .isNotEqualTo(aBackend);
        assertThat(b.rowCommittedAtOnce()).isTrue();
        assertCommitted(ds, List.of(B_ROW));
    }

    @Test
    void unwrappingAStatementToTheDriversPinsUntilTheHandleClosesAndTheConnectionIsNotReused() throws Exception {
        LoomPoolDataSource ds = dataSource(1);
        long aBackend;
        try (Connection a = ds.getConnection()) {
            aBackend = backend(a);
            Object driverStatement;
            try (Statement st = a.createStatement()) {
                assertThat(st.unwrap(Statement.class)).as("unwrap to JDBC's own interface").isSameAs(st);
                assertThat(st.isWrapperFor(driverStatementType())).isTrue();
                driverStatement = st.unwrap(driverStatementType());
            }
            assertThat(driverStatement).isInstanceOf(driverStatementType());
            assertThat(loom(a).pinReasons()).as("its getConnection() is the physical connection")
                    .containsExactly(PinReason.EXPLICIT);
            assertBMustWait(ds, "A holds the driver's statement object");
        }
        BView b = borrowB(ds, List.of());
        assertThat(b.backend()).as("what went through the driver's object is unknown: closed, not reused")
                .isNotEqualTo(aBackend);
        assertCommitted(ds, List.of(B_ROW));
    }

    @Test
    void unwrappingAResultSetToTheDriversPinsUntilTheHandleClosesAndTheConnectionIsNotReused() throws Exception {
        LoomPoolDataSource ds = dataSource(1);
        long aBackend;
        try (Connection a = ds.getConnection()) {
            aBackend = backend(a);
            try (Statement st = a.createStatement(); ResultSet rs = st.executeQuery(sql("SELECT 1"))) {
                assertThat(rs.unwrap(ResultSet.class)).as("unwrap to JDBC's own interface").isSameAs(rs);
                assertThat(rs.unwrap(driverResultSetType())).isInstanceOf(driverResultSetType());
            }
            assertThat(loom(a).pinReasons()).containsExactly(PinReason.EXPLICIT);
            assertBMustWait(ds, "A holds the driver's result set object");
        }
        BView b = borrowB(ds, List.of());
        assertThat(b.backend()).isNotEqualTo(aBackend);
        assertCommitted(ds, List.of(B_ROW));
    }

    @Test
    void aDriverObjectReadFromAResultSetKeepsAnotherBorrowerOutUntilTheHandleCloses() throws Exception {
        LoomPoolDataSource ds = dataSource(1);
        try (Connection a = ds.getConnection()) {
            long aBackend = backend(a);
            Object value;
            try (Statement st = a.createStatement(); ResultSet rs = st.executeQuery(sql(driverObjectQuery()))) {
                assertThat(rs.next()).isTrue();
                value = readDriverObject(rs);
            }
            assertThat(value).as("the driver's object (test premise)").isNotNull();
            assertThat(loom(a).pinReasons()).as("the object may still talk to its connection")
                    .containsExactly(PinReason.EXPLICIT);
            assertBMustWait(ds, "A holds a LOB or array of the driver's");
            a.close();
            assertCleanAutocommitSession(borrowB(ds, List.of()), aBackend);
        }
        assertCommitted(ds, List.of(B_ROW));
    }

    /** Its connection went back with the statement: whatever is bound later may be another one. */
    @Test
    void aResultSetOfAClosedStatementLendsNothingNeitherUnboundNorFromTheConnectionBoundLater() throws Exception {
        LoomPoolDataSource ds = dataSource(1);
        try (Connection a = ds.getConnection()) {
            Statement st = a.createStatement();
            ResultSet rs = st.executeQuery(sql("SELECT 1"));
            st.close();
            assertThatThrownBy(() -> rs.unwrap(driverResultSetType())).as("refused, not a NullPointerException")
                    .isInstanceOf(SQLException.class);
            assertNotPinned(a, "a refused unwrap");
            a.setAutoCommit(false);
            run(a, insert(1)); // bound again
            assertThatThrownBy(() -> rs.unwrap(driverResultSetType())).isInstanceOf(SQLException.class);
            assertThat(loom(a).pinReasons()).as("and the insert's id, kept for the next statement")
                    .containsExactlyInAnyOrder(PinReason.TRANSACTION, PinReason.STATEMENT_VALUE);
            a.rollback();
        }
        assertCommitted(ds, List.of());
    }

    /** pgjdbc hands out the type map and client info it keeps: a put into them would reach B. */
    @Test
    void theTypeMapAndClientInfoAHandleReadsAreCopiesSoNothingPutIntoThemReachesB() throws Exception {
        LoomPoolDataSource ds = dataSource(1);
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
        assertCommitted(ds, List.of());
    }

    @Test
    void aFrameworkTransactionKeepsAnotherBorrowerOutUntilItEnds() throws Exception {
        LoomPoolDataSource ds = dataSource(1);
        try (Connection a = ds.getConnection()) {
            loom(a).beginFrameworkTransaction();
            long aBackend = backend(a);
            assertThat(loom(a).pinReasons()).containsExactly(PinReason.FRAMEWORK_TRANSACTION);
            assertBMustWait(ds, "a framework transaction is active on it");
            loom(a).endFrameworkTransaction();
            assertNotPinned(a, "endFrameworkTransaction()");
            assertCleanAutocommitSession(borrowB(ds, List.of()), aBackend);
        }
        assertCommitted(ds, List.of(B_ROW));
    }

    // ---- case 1: the lost rollback -----------------------------------------------------------------

    /** Row 1, commit(), row 2 on the same still-open prepared statement, close it, rollback(). */
    private Scenario commitThenMoreWorkOnTheSameStatement(boolean rollback) {
        return c -> {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement(sql("INSERT INTO {t} VALUES (?)"))) {
                ps.setInt(1, 1);
                ps.executeUpdate();
                c.commit();
                ps.setInt(1, 2);
                ps.executeUpdate();
            }
            if (rollback) {
                c.rollback();
            }
        };
    }

    @Test
    void rollbackUndoesWorkDoneAfterACommitOnAStatementLeftOpenAcrossItLikeThePlainDriver() throws Exception {
        List<Integer> expected = reference(commitThenMoreWorkOnTheSameStatement(true));
        assertThat(expected).as("the plain driver (test premise)").containsExactly(1);
        LoomPoolDataSource ds = dataSource(1);
        long aBackend;
        try (Connection a = ds.getConnection()) {
            aBackend = backend(a);
            commitThenMoreWorkOnTheSameStatement(true).run(a);
            assertThat(committed()).as("committed after A's rollback(), A still open").isEqualTo(expected);
        }
        assertCleanAutocommitSession(borrowB(ds, List.of()), aBackend);
        assertCommitted(ds, plus(expected, B_ROW));
    }

    @Test
    void theTransactionAfterACommitOnAStillOpenStatementKeepsAnotherBorrowerOut() throws Exception {
        LoomPoolDataSource ds = dataSource(1);
        try (Connection a = ds.getConnection()) {
            commitThenMoreWorkOnTheSameStatement(false).run(a);
            assertBMustWait(ds, "row 2 is in its open transaction");
            assertThat(loom(a).pinReasons()).contains(PinReason.TRANSACTION);
            a.rollback();
        }
        assertCommitted(ds, List.of(1));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void sqlCommitThenMoreWorkThenCloseWithoutCommitLeavesTheLaterWorkUncommittedLikeThePlainDriver(Shape shape)
            throws Exception {
        Scenario sqlCommit = c -> {
            c.setAutoCommit(false);
            run(c, insert(1), "COMMIT", insert(2));
        };
        List<Integer> expected = reference(sqlCommit);
        assertThat(expected).as("the plain driver (test premise)").containsExactly(1);
        LoomPoolDataSource ds = dataSource(1);
        long aBackend;
        try (Connection a = ds.getConnection()) {
            aBackend = backend(a);
            sqlCommit.run(a);
            if (shape == Shape.B_WHILE_A_OPEN) {
                assertBMustWait(ds, "row 2 is in its open transaction");
            }
        }
        if (shape == Shape.B_WHILE_A_OPEN) {
            assertCommitted(ds, expected);
            return;
        }
        assertThat(committed()).as("committed once A closed without commit").isEqualTo(expected);
        assertCleanAutocommitSession(borrowB(ds, List.of()), aBackend);
        assertCommitted(ds, plus(expected, B_ROW));
    }

    // ---- case 5: a reset must not destroy healthy connections --------------------------------------

    @Test
    void sixTransactionsEndedBySetAutoCommitTrueCommitEveryRowOnOneHealthyConnection() throws Exception {
        Round round = (c, row) -> {
            c.setAutoCommit(false);
            run(c, insert(row));
            c.setAutoCommit(true); // commits, per JDBC
        };
        assertThat(reference(c -> round.run(c, 1))).as("the plain driver (test premise)").containsExactly(1);
        LoomPoolDataSource ds = dataSource(1);
        List<String> rounds = sixRounds(ds, round);
        assertOneHealthyConnection(ds, rounds);
        assertCommitted(ds, List.of(1, 2, 3, 4, 5, 6));
    }

    @Test
    void sixSqlTransactionsLeftOpenAtCloseAreRolledBackOnOneHealthyConnection() throws Exception {
        Round round = (c, row) -> run(c, "BEGIN", insert(row));
        assertThat(reference(c -> round.run(c, 1))).as("the plain driver (test premise)").isEmpty();
        LoomPoolDataSource ds = dataSource(1);
        List<String> rounds = sixRounds(ds, round);
        assertOneHealthyConnection(ds, rounds);
        assertCommitted(ds, List.of());
    }

    // ---- case 6: pins that must end with their cause -----------------------------------------------

    @Test
    void aStatementTheDriverClosedThroughCloseOnCompletionNoLongerPins() throws Exception {
        LoomPoolDataSource ds = dataSource(1);
        try (Connection a = ds.getConnection()) {
            long aBackend = backend(a);
            Statement st = a.createStatement();
            st.closeOnCompletion();
            try (ResultSet rs = st.executeQuery("SELECT 1")) {
                assertThat(rs.next()).isTrue();
            }
            assertThat(st.isClosed()).as("the driver closed the statement (test premise)").isTrue();
            assertNotPinned(a, "the driver closed its only statement");
            assertCleanAutocommitSession(borrowB(ds, List.of()), aBackend);
            run(a, insert(1));
        }
        assertCommitted(ds, List.of(1, B_ROW));
    }

    @Test
    void aClosedMetaDataResultSetNoLongerPins() throws Exception {
        LoomPoolDataSource ds = dataSource(1);
        try (Connection a = ds.getConnection()) {
            long aBackend = backend(a);
            DatabaseMetaData md = a.getMetaData();
            try (ResultSet rs = md.getTables(null, null, table, null)) {
                assertThat(rs.next()).as("the metadata finds the test table (test premise)").isTrue();
                assertThat(loom(a).pinReasons()).as("an open metadata result set pins").contains(PinReason.STATEMENT);
            }
            assertNotPinned(a, "closing its metadata result set");
            assertCleanAutocommitSession(borrowB(ds, List.of()), aBackend);
            run(a, insert(1));
        }
        assertCommitted(ds, List.of(1, B_ROW));
    }
}
