package dev.loompool.jdbc;

import static dev.loompool.jdbc.PinSemanticsSupport.B_ROW;
import static dev.loompool.jdbc.PinSemanticsSupport.assertNotPinned;
import static dev.loompool.jdbc.PinSemanticsSupport.loom;
import static dev.loompool.jdbc.PinSemanticsSupport.withOptions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.jdbc.PinSemanticsSupport.Probe;
import dev.loompool.jdbc.PinSemanticsSupport.Shape;
import java.sql.Array;
import java.sql.Connection;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The pin-semantics suite on a real PostgreSQL, and what only PostgreSQL's SQL can do to a borrower. */
class PostgresPinSemanticsTest extends PinSemanticsSuite {

    /**
     * The backend's pid, read without pg_backend_pid(): reading the identity pins the handle until
     * close (issue 26), which would hide the pins under test. The client's port names the connection.
     */
    static final String BACKEND_PID = "SELECT pid FROM pg_stat_activity WHERE client_port = inet_client_port() "
            + "AND client_addr = inet_client_addr()";

    private static final Probe SEARCH_PATH = new Probe("SHOW search_path", "leak_schema");
    private static final Probe APPLICATION_NAME = new Probe("SELECT current_setting('application_name')", "leak_app");
    private static final Probe TEMP_TABLE =
            new Probe("SELECT coalesce(to_regclass('pg_temp.leak_tmp')::text, 'none')", "leak_tmp");

    PostgresPinSemanticsTest() {
        super(new PinSemanticsSupport(TestDatabase.POSTGRES, TestDatabase.POSTGRES.url(), () -> BACKEND_PID,
                List.of("SHOW application_name", "SHOW statement_timeout", "SHOW search_path", "SHOW extra_float_digits",
                        "SHOW DateStyle", "SHOW IntervalStyle", "SHOW TimeZone", "SHOW client_encoding",
                        "SHOW transaction_isolation", "SHOW default_transaction_read_only"),
                null)); // no in-transaction probe: B's row, committed at once or not, tells
    }

    @Override
    String sessionStateSql() {
        return "SET application_name = 'leak_app'";
    }

    @Override
    Probe sessionStateProbe() {
        return APPLICATION_NAME;
    }

    @Override
    Class<?> driverConnectionType() {
        return org.postgresql.PGConnection.class;
    }

    @Override
    Class<?> driverStatementType() {
        return org.postgresql.PGStatement.class;
    }

    @Override
    Class<?> driverResultSetType() {
        return org.postgresql.jdbc.PgResultSet.class;
    }

    @Override
    String driverObjectQuery() {
        return "SELECT '<a/>'::xml";
    }

    @Override
    Object readDriverObject(ResultSet rs) throws SQLException {
        return rs.getSQLXML(1);
    }

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

    // ---- case 2: transactions the SQL classifier cannot see ------------------------------------------

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void commitAndChainOpensATransactionThatStaysWithA(Shape shape) throws Exception {
        pin.transactionScenario(shape, List.of(1), "BEGIN", pin.insert(1), "COMMIT AND CHAIN", pin.insert(2));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void rollbackAndChainOpensATransactionThatStaysWithA(Shape shape) throws Exception {
        pin.transactionScenario(shape, List.of(), "BEGIN", pin.insert(1), "ROLLBACK AND CHAIN", pin.insert(2));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void aMultiStatementStringEndingInBeginOpensATransactionThatStaysWithA(Shape shape) throws Exception {
        // Sent in one round trip, the INSERT joins the transaction that BEGIN opens: the plain driver commits nothing.
        pin.transactionScenario(shape, List.of(), pin.insert(1) + "; BEGIN", pin.insert(2));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void aBeginAfterANestedCommentOpensATransactionThatStaysWithA(Shape shape) throws Exception {
        pin.transactionScenario(shape, List.of(), "/* outer /* inner */ still a comment */ BEGIN", pin.insert(1));
    }

    // ---- case 3: session state the SQL classifier cannot see -----------------------------------------

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void searchPathSetThroughSetConfigInASelectDoesNotReachB(Shape shape) throws Exception {
        pin.sessionScenario(shape, SEARCH_PATH, "SELECT set_config('search_path', 'leak_schema', false)");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void aSetAfterANestedCommentDoesNotReachB(Shape shape) throws Exception {
        pin.sessionScenario(shape, APPLICATION_NAME, "/* outer /* inner */ still a comment */ SET application_name = 'leak_app'");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void aSetAfterASelectInOneStringDoesNotReachB(Shape shape) throws Exception {
        pin.sessionScenario(shape, SEARCH_PATH, "SELECT 1; SET search_path TO leak_schema");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void setConfigInsideADoBlockDoesNotReachB(Shape shape) throws Exception {
        pin.sessionScenario(shape, APPLICATION_NAME,
                "DO $$BEGIN PERFORM set_config('application_name', 'leak_app', false); END$$");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void aSetExecutedInsideADoBlockDoesNotReachB(Shape shape) throws Exception {
        pin.sessionScenario(shape, SEARCH_PATH, "DO $$BEGIN EXECUTE 'SET search_path TO leak_schema'; END$$");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void aTempTableMadeBySelectIntoTempDoesNotReachB(Shape shape) throws Exception {
        pin.sessionScenario(shape, TEMP_TABLE, "SELECT 1 AS x INTO TEMP leak_tmp");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void aTempTableMadeInSchemaPgTempDoesNotReachB(Shape shape) throws Exception {
        pin.sessionScenario(shape, TEMP_TABLE, "CREATE TABLE pg_temp.leak_tmp (id int)");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void anAdvisoryLockTakenInsideAWithQueryIsNotLeftHeld(Shape shape) throws Exception {
        advisoryLockScenario(shape, "WITH l AS (SELECT pg_advisory_lock(42, %d)) SELECT * FROM l");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void anAdvisoryLockTakenInAValuesListIsNotLeftHeld(Shape shape) throws Exception {
        advisoryLockScenario(shape, "VALUES (pg_advisory_lock(42, %d))");
    }

    /**
     * A takes a session-level advisory lock (42, a key of this test's own) in SQL the classifier
     * may miss. Once A closes, its backend must hold no advisory lock, as pg_locks shows an
     * independent session; while A is open, B must wait.
     */
    private void advisoryLockScenario(Shape shape, String lockSql) throws Exception {
        int key = Math.floorMod(pin.table.hashCode(), 1_000_000);
        LoomPoolDataSource ds = pin.dataSource(1);
        Connection a = ds.getConnection();
        long aBackend = pin.backend(a);
        pin.run(a, String.format(lockSql, key));
        assertThat(advisoryLocksHeldBy(aBackend)).as("A holds the lock (test premise)").isEqualTo(1);
        if (shape == Shape.B_WHILE_A_OPEN) {
            pin.assertBMustWait(ds, "it holds a session-level advisory lock");
        }
        a.close();
        assertThat(advisoryLocksHeldBy(aBackend)).as("advisory locks A's backend still holds after A closed").isZero();
        if (shape == Shape.B_WHILE_A_OPEN) {
            pin.assertCommitted(ds, List.of());
            return;
        }
        pin.assertCleanAutocommitSession(pin.borrowB(ds, List.of()), aBackend);
        pin.assertCommitted(ds, List.of(B_ROW));
    }

    private long advisoryLocksHeldBy(long backend) throws SQLException {
        try (Connection admin = pin.database().admin();
                PreparedStatement ps = admin.prepareStatement(
                        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = ?")) {
            ps.setInt(1, (int) backend);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    // ---- case 4: a reset that restores what the driver and connectionInitSql set ---------------------

    @Test
    void afterAResetBSeesTheApplicationNameAndInitSqlSettingsOfAFreshConnection() throws Exception {
        Map<String, String> fresh = pin.resetScenario(withOptions(pin.url(), "ApplicationName=myapp&currentSchema=public"),
                "SET statement_timeout = '7s'",
                "SET search_path TO leak_schema", "SET application_name = 'leak_app'", "SET statement_timeout = '1s'",
                "SET extra_float_digits = 0", "SET TimeZone = 'Asia/Tokyo'", "SET IntervalStyle = 'sql_standard'");
        assertThat(fresh).as("a fresh connection (test premise)")
                .containsEntry("SHOW application_name", "myapp").containsEntry("SHOW statement_timeout", "7s");
    }

    // ---- case 6: pins that must end with their cause -------------------------------------------------

    @Test
    void beginThenAbortAsTwoStatementsLeavesNothingPinned() throws Exception {
        abortScenario("BEGIN", pin.insert(1), "ABORT");
    }

    @Test
    void beginThenAbortInOneStringLeavesNothingPinned() throws Exception {
        abortScenario("BEGIN; " + pin.insert(1) + "; ABORT");
    }

    /** The transaction A opened and aborted is over: A's handle is unbound, B borrows while it is open. */
    private void abortScenario(String... aSql) throws Exception {
        assertThat(pin.reference(c -> pin.run(c, aSql))).as("the plain driver (test premise)").isEmpty();
        LoomPoolDataSource ds = pin.dataSource(1);
        try (Connection a = ds.getConnection()) {
            long aBackend = pin.backend(a);
            pin.run(a, aSql);
            assertNotPinned(a, "its transaction was aborted");
            pin.assertCleanAutocommitSession(pin.borrowB(ds, List.of()), aBackend);
            pin.run(a, pin.insert(2));
        }
        pin.assertCommitted(ds, List.of(2, B_ROW));
    }
}
