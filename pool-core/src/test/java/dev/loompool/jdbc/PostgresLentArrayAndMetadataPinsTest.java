package dev.loompool.jdbc;

import static dev.loompool.jdbc.PinSemanticsSupport.B_ROW;
import static dev.loompool.jdbc.PinSemanticsSupport.loom;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Array;
import java.sql.Connection;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * How long an array or metadata of pgjdbc's pins, on a real PostgreSQL (DESIGN.md §4, "Objects
 * that outlive their handle refuse"; issue 28): an array read from a result set pins nothing, one
 * the handle made pins until the statement it is made for has run, metadata pins no longer than
 * its statement; kept longer, they refuse instead of reaching borrower B's session. The
 * pin-semantics fixture of {@link PostgresPinSemanticsTest}; the driver matrix runs it too.
 */
class PostgresLentArrayAndMetadataPinsTest {

    /** The table, the pools and borrower B, on PostgreSQL. */
    @RegisterExtension
    final PinSemanticsSupport pin = PostgresPinSemanticsTest.pinSemanticsSupport();

    /**
     * An array read from a result set is read at once: its values answer from memory, so it pins
     * nothing (issue 28: Hibernate reading an array column under open-in-view kept the connection
     * for the rest of the request). The connection goes back with its statement; B gets it and
     * sees a clean session; A's array still answers, and never through B's session.
     */
    @Test
    void anArrayReadThroughGetObjectPinsNothingAndStillAnswersFromMemory() throws Exception {
        anArrayReadFromAResultSetPinsNothing(rs -> rs.getObject(1));
    }

    @Test
    void anArrayReadThroughGetArrayPinsNothingAndStillAnswersFromMemory() throws Exception {
        anArrayReadFromAResultSetPinsNothing(rs -> rs.getArray(1));
    }

    @FunctionalInterface
    interface ColumnRead {
        Object read(ResultSet rs) throws SQLException;
    }

    private void anArrayReadFromAResultSetPinsNothing(ColumnRead read) throws Exception {
        LoomPoolDataSource ds = pin.dataSource(1);
        try (Connection a = ds.getConnection()) {
            long aBackend = pin.backend(a);
            Object value;
            try (PreparedStatement ps = a.prepareStatement("SELECT ARRAY['x', 'y']"); ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                value = read.read(rs);
            }
            assertThat(value).isInstanceOf(java.sql.Array.class);
            assertThat(loom(a).pinReasons()).as("its values were read at once").isEmpty();
            pin.assertCleanAutocommitSession(pin.borrowB(ds, List.of()), aBackend);
            java.sql.Array array = (java.sql.Array) value;
            assertThat((Object[]) array.getArray()).containsExactly("x", "y");
            assertThat(array.getBaseTypeName()).isEqualTo("text");
            try (ResultSet rows = array.getResultSet()) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getString(2)).isEqualTo("x");
            }
            assertThat(org.junit.jupiter.api.Assertions.assertThrows(SQLException.class,
                    () -> array.getArray(java.util.Map.of("text", String.class))).getSQLState())
                    .as("a call that needs the driver, after the binding ended").isEqualTo("HY010");
        }
        pin.assertCommitted(ds, List.of(B_ROW));
    }

    /**
     * pgjdbc's array hands out its connection ({@code getResultSet().getStatement().getConnection()}):
     * the pool's array does not (its rows are a disconnected copy), so an array only pins, and the
     * connection is reset and reused, not closed (Hibernate binds an array for every batch fetch).
     */
    @FunctionalInterface
    interface ArrayOf {
        Array read(Connection a) throws SQLException;
    }

    private void anArrayPinsAndTheConnectionIsReused(ArrayOf arrayOf) throws Exception {
        LoomPoolDataSource ds = pin.dataSource(1);
        long aBackend;
        try (Connection a = ds.getConnection()) {
            aBackend = pin.backend(a);
            Array array = arrayOf.read(a);
            try (ResultSet rows = array.getResultSet()) {
                assertThat(rows.getStatement()).as("no way to the driver's statement or connection").isNull();
                assertThat(rows.next()).isTrue();
                assertThat(rows.getInt(2)).isEqualTo(1);
            }
            assertThat(loom(a).pinReasons()).containsExactly(PinReason.EXPLICIT);
            pin.assertBMustWait(ds, "A holds an array");
        }
        pin.assertCleanAutocommitSession(pin.borrowB(ds, List.of()), aBackend);
        pin.assertCommitted(ds, List.of(B_ROW));
    }

    @Test
    void anArrayTheHandleCreatedPinsAndItsConnectionIsReused() throws Exception {
        anArrayPinsAndTheConnectionIsReused(a -> a.createArrayOf("int4", new Object[] {1, 2}));
    }

    /**
     * An array the handle made holds no server state: it pins until the handle's next statement
     * runs, the one it is made for (Hibernate's batch fetch binds one per {@code = any(?)}; pinned
     * until close, it kept an open-in-view session's connection for the rest of the request, issue
     * 28). Then the connection goes back, and the array, used later, refuses: B's session never
     * sees it.
     */
    @Test
    void anArrayTheHandleMadePinsUntilTheStatementItIsMadeForHasRun() throws Exception {
        LoomPoolDataSource ds = pin.dataSource(1);
        try (Connection a = ds.getConnection()) {
            long aBackend = pin.backend(a);
            Array ids = a.createArrayOf("int4", new Object[] {1, 2, 3});
            assertThat(loom(a).pinReasons()).as("made, not yet bound to a statement").containsExactly(PinReason.EXPLICIT);
            pin.assertBMustWait(ds, "A made an array for its next statement");
            try (PreparedStatement ps = a.prepareStatement("SELECT count(*) FROM generate_series(1, 5) g WHERE g = ANY(?)")) {
                ps.setArray(1, ids);
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getInt(1)).isEqualTo(3);
                }
            }
            assertThat(loom(a).pinReasons()).as("the statement it was made for ran and closed").isEmpty();
            pin.assertCleanAutocommitSession(pin.borrowB(ds, List.of()), aBackend);
            assertThat(org.junit.jupiter.api.Assertions.assertThrows(SQLException.class, ids::getArray).getSQLState())
                    .as("used after its connection went back").isEqualTo("HY010");
            try (PreparedStatement ps = a.prepareStatement("SELECT cardinality(?::int4[])")) {
                assertThat(org.junit.jupiter.api.Assertions.assertThrows(SQLException.class, () -> ps.setArray(1, ids))
                        .getSQLState()).as("passed to a statement of a later binding").isEqualTo("HY010");
            }
        }
        pin.assertCommitted(ds, List.of(B_ROW));
    }

    @Test
    void anArrayMadeWhileTheHandleIsPinnedForAnotherReasonKeepsThatPin() throws Exception {
        LoomPoolDataSource ds = pin.dataSource(1);
        try (Connection a = ds.getConnection()) {
            loom(a).pin();
            Array ids = a.createArrayOf("int4", new Object[] {1});
            try (PreparedStatement ps = a.prepareStatement("SELECT cardinality(?::int4[])")) {
                ps.setArray(1, ids);
                ps.executeQuery().close();
            }
            assertThat(loom(a).pinReasons()).containsExactly(PinReason.EXPLICIT);
            pin.assertBMustWait(ds, "A pinned before it made the array");
            Array more = a.createArrayOf("int4", new Object[] {2});
            try (Statement st = a.createStatement()) {
                st.execute("SELECT 1");
            }
            assertThat(loom(a).pinReasons()).as("pin() after nothing: still until unpin or close").containsExactly(PinReason.EXPLICIT);
            assertThat((Object[]) more.getArray()).containsExactly(2);
        }
        pin.assertCommitted(ds, List.of());
    }

    @Test
    void unpinLeavesThePinOfAnArrayAStillHolds() throws Exception {
        LoomPoolDataSource ds = pin.dataSource(1);
        try (Connection a = ds.getConnection()) {
            Array array = a.createArrayOf("int4", new Object[] {1, 2});
            loom(a).pin();
            loom(a).unpin();
            assertThat(loom(a).pinReasons()).as("the array still reaches the connection").containsExactly(PinReason.EXPLICIT);
            pin.assertBMustWait(ds, "A still holds an array");
            assertThat((Object[]) array.getArray()).containsExactly(1, 2);
        }
        pin.assertCommitted(ds, List.of());
    }

    /**
     * pgjdbc's result-set metadata queries the connection when asked (isNullable, base names). It
     * pins no longer than its statement (issue 28: Hibernate reads an IDENTITY insert's generated
     * keys' metadata, which kept an open-in-view session's connection until the request ended);
     * kept after its statement closed and the connection went back, it refuses, and never runs in
     * B's session or transaction.
     */
    @Test
    void resultSetMetaDataKeptAfterItsStatementClosedLetsTheConnectionGoAndRefusesInAnotherBorrowersSession()
            throws Exception {
        LoomPoolDataSource ds = pin.dataSource(1);
        try (Connection a = ds.getConnection()) {
            ResultSetMetaData md;
            try (Statement st = a.createStatement(); ResultSet rs = st.executeQuery("SELECT id FROM " + pin.table)) {
                md = rs.getMetaData();
            }
            assertThat(loom(a).isBound()).as("the metadata outlives its statement, not its pin").isFalse();
            assertMetadataRefusedInsideBsTransaction(ds, () -> md.isNullable(1));
        }
        pin.assertCommitted(ds, List.of(B_ROW));
    }

    @Test
    void parameterMetaDataKeptAfterItsStatementClosedLetsTheConnectionGoAndRefusesInAnotherBorrowersSession()
            throws Exception {
        LoomPoolDataSource ds = pin.dataSource(1);
        try (Connection a = ds.getConnection()) {
            ParameterMetaData md;
            try (PreparedStatement ps = a.prepareStatement("SELECT id FROM " + pin.table + " WHERE id = ?")) {
                md = ps.getParameterMetaData();
            }
            assertThat(loom(a).isBound()).isFalse();
            assertMetadataRefusedInsideBsTransaction(ds, () -> md.getParameterTypeName(1));
        }
        pin.assertCommitted(ds, List.of(B_ROW));
    }

    /** Inside A's transaction the connection stays A's, and the metadata answers after its statement closed. */
    @Test
    void metadataKeptAfterItsStatementClosedAnswersWhileTheTransactionKeepsTheConnection() throws Exception {
        LoomPoolDataSource ds = pin.dataSource(1);
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            ResultSetMetaData md;
            try (Statement st = a.createStatement(); ResultSet rs = st.executeQuery("SELECT id FROM " + pin.table)) {
                md = rs.getMetaData();
            }
            assertThat(loom(a).pinReasons()).containsExactly(PinReason.TRANSACTION);
            assertThat(md.isNullable(1)).isEqualTo(ResultSetMetaData.columnNoNulls);
            a.commit();
            assertThat(loom(a).isBound()).as("the commit ends the last pin; the metadata keeps none").isFalse();
        }
    }

    @FunctionalInterface
    interface MetadataCall {
        Object call() throws SQLException;
    }

    private void assertMetadataRefusedInsideBsTransaction(LoomPoolDataSource ds, MetadataCall call) throws Exception {
        try (Connection b = ds.getConnection(); Statement st = b.createStatement()) {
            b.setAutoCommit(false);
            st.execute(pin.insert(B_ROW));
            assertThatThrownBy(call::call).as("never in B's session")
                    .isInstanceOf(SQLException.class).hasMessageContaining("no longer holds");
            b.commit();
        }
    }
}
