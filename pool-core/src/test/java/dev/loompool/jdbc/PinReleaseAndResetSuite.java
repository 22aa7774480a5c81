package dev.loompool.jdbc;

import static dev.loompool.jdbc.PinSemanticsSupport.B_ROW;
import static dev.loompool.jdbc.PinSemanticsSupport.assertNotPinned;
import static dev.loompool.jdbc.PinSemanticsSupport.loom;
import static dev.loompool.jdbc.PinSemanticsSupport.plus;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.PinSemanticsSupport.Round;
import dev.loompool.jdbc.PinSemanticsSupport.Scenario;
import dev.loompool.jdbc.PinSemanticsSupport.Shape;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The pin-semantics suite's second half: how pins end (DESIGN.md §4, "Release" and "Reset on
 * return"). A rollback after a commit on a still-open statement is not lost, a reset on return
 * keeps healthy connections, and a pin ends with its cause (issue 10, cases 1, 5 and 6). It reads
 * the same on every database and needs nothing of the dialect but its fixture: a subclass
 * ({@link PostgresPinReleaseAndResetTest}, {@link MariaDbPinReleaseAndResetTest}) names the database
 * and hands over the same {@link PinSemanticsSupport} as its {@link PinSemanticsSuite} twin. The
 * two suites are independent: neither extends the other.
 */
abstract class PinReleaseAndResetSuite {

    /** The table, the pools and borrower B of this database's dialect. */
    @RegisterExtension
    final PinSemanticsSupport pin;

    PinReleaseAndResetSuite(PinSemanticsSupport pin) {
        this.pin = pin;
    }

    // ---- case 1: the lost rollback -----------------------------------------------------------------

    /** Row 1, commit(), row 2 on the same still-open prepared statement, close it, rollback(). */
    private Scenario commitThenMoreWorkOnTheSameStatement(boolean rollback) {
        return c -> {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement(pin.sql("INSERT INTO {t} VALUES (?)"))) {
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
        List<Integer> expected = pin.reference(commitThenMoreWorkOnTheSameStatement(true));
        assertThat(expected).as("the plain driver (test premise)").containsExactly(1);
        LoomPoolDataSource ds = pin.dataSource(1);
        long aBackend;
        try (Connection a = ds.getConnection()) {
            aBackend = pin.backend(a);
            commitThenMoreWorkOnTheSameStatement(true).run(a);
            assertThat(pin.committed()).as("committed after A's rollback(), A still open").isEqualTo(expected);
        }
        pin.assertCleanAutocommitSession(pin.borrowB(ds, List.of()), aBackend);
        pin.assertCommitted(ds, plus(expected, B_ROW));
    }

    @Test
    void theTransactionAfterACommitOnAStillOpenStatementKeepsAnotherBorrowerOut() throws Exception {
        LoomPoolDataSource ds = pin.dataSource(1);
        try (Connection a = ds.getConnection()) {
            commitThenMoreWorkOnTheSameStatement(false).run(a);
            pin.assertBMustWait(ds, "row 2 is in its open transaction");
            assertThat(loom(a).pinReasons()).contains(PinReason.TRANSACTION);
            a.rollback();
        }
        pin.assertCommitted(ds, List.of(1));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void sqlCommitThenMoreWorkThenCloseWithoutCommitLeavesTheLaterWorkUncommittedLikeThePlainDriver(Shape shape)
            throws Exception {
        Scenario sqlCommit = c -> {
            c.setAutoCommit(false);
            pin.run(c, pin.insert(1), "COMMIT", pin.insert(2));
        };
        List<Integer> expected = pin.reference(sqlCommit);
        assertThat(expected).as("the plain driver (test premise)").containsExactly(1);
        LoomPoolDataSource ds = pin.dataSource(1);
        long aBackend;
        try (Connection a = ds.getConnection()) {
            aBackend = pin.backend(a);
            sqlCommit.run(a);
            if (shape == Shape.B_WHILE_A_OPEN) {
                pin.assertBMustWait(ds, "row 2 is in its open transaction");
            }
        }
        if (shape == Shape.B_WHILE_A_OPEN) {
            pin.assertCommitted(ds, expected);
            return;
        }
        assertThat(pin.committed()).as("committed once A closed without commit").isEqualTo(expected);
        pin.assertCleanAutocommitSession(pin.borrowB(ds, List.of()), aBackend);
        pin.assertCommitted(ds, plus(expected, B_ROW));
    }

    // ---- case 5: a reset must not destroy healthy connections --------------------------------------

    @Test
    void sixTransactionsEndedBySetAutoCommitTrueCommitEveryRowOnOneHealthyConnection() throws Exception {
        Round round = (c, row) -> {
            c.setAutoCommit(false);
            pin.run(c, pin.insert(row));
            c.setAutoCommit(true); // commits, per JDBC
        };
        assertThat(pin.reference(c -> round.run(c, 1))).as("the plain driver (test premise)").containsExactly(1);
        LoomPoolDataSource ds = pin.dataSource(1);
        List<String> rounds = pin.sixRounds(ds, round);
        pin.assertOneHealthyConnection(ds, rounds);
        pin.assertCommitted(ds, List.of(1, 2, 3, 4, 5, 6));
    }

    @Test
    void sixSqlTransactionsLeftOpenAtCloseAreRolledBackOnOneHealthyConnection() throws Exception {
        Round round = (c, row) -> pin.run(c, "BEGIN", pin.insert(row));
        assertThat(pin.reference(c -> round.run(c, 1))).as("the plain driver (test premise)").isEmpty();
        LoomPoolDataSource ds = pin.dataSource(1);
        List<String> rounds = pin.sixRounds(ds, round);
        pin.assertOneHealthyConnection(ds, rounds);
        pin.assertCommitted(ds, List.of());
    }

    // ---- case 6: pins that must end with their cause -----------------------------------------------

    @Test
    void aStatementTheDriverClosedThroughCloseOnCompletionNoLongerPins() throws Exception {
        LoomPoolDataSource ds = pin.dataSource(1);
        try (Connection a = ds.getConnection()) {
            long aBackend = pin.backend(a);
            Statement st = a.createStatement();
            st.closeOnCompletion();
            try (ResultSet rs = st.executeQuery("SELECT 1")) {
                assertThat(rs.next()).isTrue();
            }
            assertThat(st.isClosed()).as("the driver closed the statement (test premise)").isTrue();
            assertNotPinned(a, "the driver closed its only statement");
            pin.assertCleanAutocommitSession(pin.borrowB(ds, List.of()), aBackend);
            pin.run(a, pin.insert(1));
        }
        pin.assertCommitted(ds, List.of(1, B_ROW));
    }

    @Test
    void aClosedMetaDataResultSetNoLongerPins() throws Exception {
        LoomPoolDataSource ds = pin.dataSource(1);
        try (Connection a = ds.getConnection()) {
            long aBackend = pin.backend(a);
            DatabaseMetaData md = a.getMetaData();
            try (ResultSet rs = md.getTables(null, null, pin.table, null)) {
                assertThat(rs.next()).as("the metadata finds the test table (test premise)").isTrue();
                assertThat(loom(a).pinReasons()).as("an open metadata result set pins").contains(PinReason.STATEMENT);
            }
            assertNotPinned(a, "closing its metadata result set");
            pin.assertCleanAutocommitSession(pin.borrowB(ds, List.of()), aBackend);
            pin.run(a, pin.insert(1));
        }
        pin.assertCommitted(ds, List.of(1, B_ROW));
    }
}
