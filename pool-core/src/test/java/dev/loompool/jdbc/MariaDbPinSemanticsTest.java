package dev.loompool.jdbc;

import static dev.loompool.jdbc.PinSemanticsSupport.B_ROW;
import static dev.loompool.jdbc.PinSemanticsSupport.withOptions;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.PinSemanticsSupport.BView;
import dev.loompool.jdbc.PinSemanticsSupport.Probe;
import dev.loompool.jdbc.PinSemanticsSupport.Shape;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The pin-semantics suite on a real MariaDB, and what only MariaDB's SQL can do to a borrower:
 * executable comments (slash-star-bang, and slash-star-M-bang-version) are SQL the server runs,
 * user variables and sql_mode live on the session, XA and BEGIN NOT ATOMIC blocks hide what they
 * do. The URL allows multi-statement strings. How pins end: {@link MariaDbPinReleaseAndResetTest}.
 */
class MariaDbPinSemanticsTest extends PinSemanticsSuite {

    /**
     * The connection's id, read without CONNECTION_ID(): reading the identity pins the handle until
     * close (issue 26), which would hide the pins under test. The query finds itself in the process
     * list by a marker of its own.
     */
    static String connectionId() {
        return "SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE '%backend-probe-"
                + java.util.UUID.randomUUID() + "%'";
    }

    private static final Probe USER_VARIABLE = new Probe("SELECT COALESCE(@v, 'none')", "4242");
    private static final Probe SQL_MODE = new Probe("SELECT @@SESSION.sql_mode", "ANSI");

    MariaDbPinSemanticsTest() {
        super(pinSemanticsSupport());
    }

    /** The pin-semantics fixture on MariaDB; {@link MariaDbPinReleaseAndResetTest} uses it too. */
    static PinSemanticsSupport pinSemanticsSupport() {
        return new PinSemanticsSupport(TestDatabase.MARIADB, withOptions(TestDatabase.MARIADB.url(), "allowMultiQueries=true"),
                MariaDbPinSemanticsTest::connectionId, List.of("SELECT @@SESSION.wait_timeout", "SELECT @@SESSION.max_statement_time",
                        "SELECT @@SESSION.sql_mode", "SELECT @@autocommit", "SELECT @@SESSION.time_zone",
                        "SELECT @@character_set_client", "SELECT @@collation_connection", "SELECT DATABASE()",
                        "SELECT @@SESSION.tx_isolation", "SELECT COALESCE(@leak, 'none')"),
                "SELECT @@in_transaction");
    }

    @Override
    String sessionStateSql() {
        return "SET @leak = 4242";
    }

    @Override
    Probe sessionStateProbe() {
        return new Probe("SELECT COALESCE(@leak, 'none')", "4242");
    }

    @Override
    Class<?> driverConnectionType() {
        return driverType("org.mariadb.jdbc.Connection", "org.mariadb.jdbc.MariaDbConnection", "com.mysql.cj.jdbc.JdbcConnection");
    }

    @Override
    Class<?> driverStatementType() {
        return driverType("org.mariadb.jdbc.Statement", "org.mariadb.jdbc.MariaDbStatement", "com.mysql.cj.jdbc.JdbcStatement");
    }

    @Override
    Class<?> driverResultSetType() {
        return driverType("org.mariadb.jdbc.client.result.Result",
                "org.mariadb.jdbc.internal.com.read.resultset.SelectResultSet", "com.mysql.cj.jdbc.result.ResultSetInternalMethods");
    }

    /**
     * The driver's own type, by the driver the URL names: MariaDB Connector/J 3 and later, or 2.x,
     * or MySQL Connector/J (module driver-matrix runs this suite on each).
     */
    private static Class<?> driverType(String mariadb, String mariadb2, String mysqlConnectorJ) {
        List<String> names = TestDatabase.MARIADB.url().startsWith("jdbc:mysql:") ? List.of(mysqlConnectorJ)
                : List.of(mariadb, mariadb2);
        for (String name : names) {
            try {
                return Class.forName(name);
            } catch (ClassNotFoundException e) {
                // an older or newer driver: the next name
            }
        }
        throw new AssertionError("none of " + names + " is on the class path");
    }

    @Override
    String driverObjectQuery() {
        return "SELECT CAST('abc' AS BINARY)";
    }

    @Override
    Object readDriverObject(ResultSet rs) throws SQLException {
        return rs.getBlob(1);
    }

    // ---- case 2: transactions the SQL classifier cannot see ------------------------------------------

    /** The plain spelling, which the classifier knows: the baseline of the hidden ones below. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void aPlainSetAutocommitZeroOpensATransactionThatStaysWithA(Shape shape) throws Exception {
        pin.transactionScenario(shape, List.of(), "SET autocommit = 0", pin.insert(1));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void autocommitOffInAVersionedCommentOpensATransactionThatStaysWithA(Shape shape) throws Exception {
        pin.transactionScenario(shape, List.of(), "/*!40101 SET autocommit = 0 */", pin.insert(1));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void startTransactionInAnExecutableCommentOpensATransactionThatStaysWithA(Shape shape) throws Exception {
        pin.transactionScenario(shape, List.of(), "/*! START TRANSACTION */", pin.insert(1));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void startTransactionInAMariaDbVersionedCommentOpensATransactionThatStaysWithA(Shape shape) throws Exception {
        pin.transactionScenario(shape, List.of(), "/*M!100100 START TRANSACTION */", pin.insert(1));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void aMultiStatementStringEndingInStartTransactionOpensATransactionThatStaysWithA(Shape shape) throws Exception {
        pin.transactionScenario(shape, List.of(1), pin.insert(1) + "; START TRANSACTION", pin.insert(2));
    }

    @Test
    void anXaTransactionKeepsAnotherBorrowerOut() throws Exception {
        pin.transactionScenario(Shape.B_WHILE_A_OPEN, List.of(), "XA START '" + pin.table + "'", pin.insert(1));
    }

    /**
     * An XA transaction left active when A closes: the pool may reset the connection or destroy it
     * (a plain ROLLBACK is refused in the ACTIVE state), so B's backend is not checked, only B's session.
     */
    @Test
    void anXaTransactionLeftActiveAtCloseIsNotCommittedAndBStartsClean() throws Exception {
        String[] aSql = {"XA START '" + pin.table + "'", pin.insert(1)};
        assertThat(pin.reference(c -> pin.run(c, aSql))).as("the plain driver (test premise)").isEmpty();
        LoomPoolDataSource ds = pin.dataSource(1);
        try (Connection a = ds.getConnection()) {
            pin.run(a, aSql);
        }
        BView b = pin.borrowB(ds, List.of());
        assertThat(b.autoCommit()).isTrue();
        assertThat(b.answers().get(pin.inTransactionProbe())).as("B's session is inside a transaction").isEqualTo("0");
        assertThat(b.rowCommittedAtOnce()).as("B's autocommit insert is committed at once").isTrue();
        pin.assertCommitted(ds, List.of(B_ROW));
    }

    // ---- case 3: session state the SQL classifier cannot see -----------------------------------------

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void aUserVariableAssignedInASelectDoesNotReachB(Shape shape) throws Exception {
        pin.sessionScenario(shape, USER_VARIABLE, "SELECT @v := 4242");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void aUserVariableSetBySelectIntoDoesNotReachB(Shape shape) throws Exception {
        pin.sessionScenario(shape, USER_VARIABLE, "SELECT 4242 INTO @v");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void aUserVariableSetInAnExecutableCommentDoesNotReachB(Shape shape) throws Exception {
        pin.sessionScenario(shape, USER_VARIABLE, "/*! SET @v = 4242 */");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void aUserVariableSetInsideBeginNotAtomicDoesNotReachB(Shape shape) throws Exception {
        pin.sessionScenario(shape, USER_VARIABLE, "BEGIN NOT ATOMIC SET @v = 4242; END");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void sqlModeSetInAMariaDbVersionedCommentDoesNotReachB(Shape shape) throws Exception {
        pin.sessionScenario(shape, SQL_MODE, "/*M!100100 SET sql_mode = 'ANSI' */");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void sqlModeSetInAVersionedCommentDoesNotReachB(Shape shape) throws Exception {
        pin.sessionScenario(shape, SQL_MODE, "/*!40101 SET SESSION sql_mode='ANSI' */");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void aNamedLockTakenInsideAWithQueryIsNotLeftHeld(Shape shape) throws Exception {
        pin.sessionScenario(shape, new Probe("SELECT IF(IS_USED_LOCK('{t}') IS NULL, 'free', 'held')", "held"),
                "WITH l AS (SELECT GET_LOCK('{t}', 0)) SELECT * FROM l");
    }

    /** A temporary table of the test table's name shadows it: B's insert would go into A's temporary table. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void aTemporaryTableMadeByCreateOrReplaceDoesNotReachB(Shape shape) throws Exception {
        pin.sessionScenario(shape, new Probe("SELECT COALESCE(MAX(id), 'none') FROM {t}", "4242"),
                "CREATE OR REPLACE TEMPORARY TABLE {t} SELECT 4242 AS id");
    }

    // ---- case 4: a reset that restores what the driver and connectionInitSql set ---------------------

    @Test
    void afterAResetBSeesTheSessionVariablesAndInitSqlSettingsOfAFreshConnection() throws Exception {
        Map<String, String> fresh = pin.resetScenario(withOptions(pin.url(), "sessionVariables=wait_timeout=1234"),
                "SET SESSION max_statement_time = 7",
                "SET @leak = 4242", "SET SESSION sql_mode = 'ANSI'", "SET SESSION wait_timeout = 5",
                "SET SESSION max_statement_time = 1", "SET time_zone = '+05:00'");
        assertThat(fresh).as("a fresh connection (test premise)")
                .containsEntry("SELECT @@SESSION.wait_timeout", "1234")
                // "7.000000" as MariaDB Connector/J writes the double, "7.0" as MySQL Connector/J does
                .hasEntrySatisfying("SELECT @@SESSION.max_statement_time", v -> assertThat(Double.parseDouble(v)).isEqualTo(7.0));
    }
}
