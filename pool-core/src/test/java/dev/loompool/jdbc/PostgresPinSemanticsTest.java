package dev.loompool.jdbc;

import static dev.loompool.jdbc.PinSemanticsSupport.B_ROW;
import static dev.loompool.jdbc.PinSemanticsSupport.assertNotPinned;
import static dev.loompool.jdbc.PinSemanticsSupport.withOptions;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.PinSemanticsSupport.Probe;
import dev.loompool.jdbc.PinSemanticsSupport.Shape;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The pin-semantics suite on a real PostgreSQL, and what only PostgreSQL's SQL can do to a borrower.
 * How pins end: {@link PostgresPinReleaseAndResetTest}. How long pgjdbc's arrays and metadata pin:
 * {@link PostgresLentArrayAndMetadataPinsTest}.
 */
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
        super(pinSemanticsSupport());
    }

    /**
     * The pin-semantics fixture on PostgreSQL; {@link PostgresPinReleaseAndResetTest} and
     * {@link PostgresLentArrayAndMetadataPinsTest} use it too.
     */
    static PinSemanticsSupport pinSemanticsSupport() {
        return new PinSemanticsSupport(TestDatabase.POSTGRES, TestDatabase.POSTGRES.url(), () -> BACKEND_PID,
                List.of("SHOW application_name", "SHOW statement_timeout", "SHOW search_path", "SHOW extra_float_digits",
                        "SHOW DateStyle", "SHOW IntervalStyle", "SHOW TimeZone", "SHOW client_encoding",
                        "SHOW transaction_isolation", "SHOW default_transaction_read_only"),
                null); // no in-transaction probe: B's row, committed at once or not, tells
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
