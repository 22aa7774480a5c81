package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 38, on the MariaDB server through both Connector/Js (MySQL Connector/J answers
 * {@code getCatalog()} from its cache, and COM_RESET_CONNECTION keeps the database): borrower A
 * chooses another database, or runs what the driver cannot parse, or has the server end its
 * session; what does B see, what does A's next call get, and what did A commit? Each beside the
 * plain driver, a connection of its own from open to close.
 */
class MysqlConnectorSessionTest extends OnRealDatabases {

    /** How A chooses the other database. */
    enum Choice {
        USE_BY_STATEMENT, USE_BY_PREPARED_STATEMENT, SET_CATALOG
    }

    static Stream<Arguments> choices() {
        List<Arguments> all = new ArrayList<>();
        for (Connector connector : Connector.values()) {
            for (Choice choice : Choice.values()) {
                for (boolean urlNamesADatabase : new boolean[] {true, false}) {
                    all.add(Arguments.of(connector, choice, urlNamesADatabase));
                }
            }
        }
        return all.stream();
    }

    /** The URL of {@code connector}, naming the test database or none ("jdbc:mysql://host:3306/?user=root"). */
    private static String url(Connector connector, boolean namesADatabase) {
        String url = connector.url(null);
        return namesADatabase ? url : url.replaceFirst("(jdbc:[a-z]+://[^/?]+)/[^?]*", "$1/");
    }

    /** An unqualified insert into the test table, as B's code writes it: "ok", or the SQLState it fails with. */
    private String insertTwo(Connection c) {
        try {
            run(c, "INSERT INTO " + table + " (v) VALUES (2)");
            return "ok";
        } catch (SQLException e) {
            return "SQLState " + e.getSQLState();
        }
    }

    /**
     * A chooses another database (by SQL {@code USE}, through a Statement or a PreparedStatement,
     * or by {@code setCatalog}), uses it and closes. B, on the pool's only connection, must be in
     * the database a fresh connection of the pool's URL is in (the URL's, or none), and B's
     * unqualified insert must land where the plain driver's lands, or fail as it fails; none of
     * it in A's database.
     */
    @ParameterizedTest(name = "{0}, {1}, URL names a database: {2}")
    @MethodSource("choices")
    void theDatabaseAChoseIsNotWhereBsStatementsRun(Connector connector, Choice choice, boolean urlNamesADatabase)
            throws SQLException {
        String other = "wt38a_db_" + tag;
        mariaAdmin("CREATE DATABASE " + other);
        mariaCleanup.add("DROP DATABASE IF EXISTS " + other);
        mariaTable();
        mariaAdmin("CREATE TABLE " + other + "." + table + " (id int AUTO_INCREMENT PRIMARY KEY, v int)");
        String url = url(connector, urlNamesADatabase);
        String plainDatabase;
        String plainInsert;
        try (Connection plain = DriverManager.getConnection(url)) {
            plainDatabase = str(plain, "SELECT DATABASE()");
            plainInsert = insertTwo(plain);
        }
        mariaAdmin("DELETE FROM " + table);
        LoomPoolDataSource ds = pool(TestDatabase.MARIADB, 1, null, null);
        ds.setJdbcUrl(url);
        Seen b = mariaAfterA(ds, a -> {
            switch (choice) {
                case USE_BY_STATEMENT -> run(a, "USE " + other);
                case USE_BY_PREPARED_STATEMENT -> {
                    try (PreparedStatement ps = a.prepareStatement("USE " + other)) {
                        ps.execute();
                    }
                }
                default -> a.setCatalog(other);
            }
            assertThat(str(a, "SELECT DATABASE()")).as("A is in the other database (test premise)").isEqualTo(other);
        }, c -> "database " + str(c, "SELECT DATABASE()") + ", insert " + insertTwo(c));
        assertThat(b.value()).as("%s", b).isEqualTo("database " + plainDatabase + ", insert " + plainInsert);
        try (Connection admin = TestDatabase.MARIADB.admin()) {
            assertThat(num(admin, "SELECT count(*) FROM " + other + "." + table)).as("rows B put in A's database")
                    .isZero();
        }
        assertThat(mariaRows()).as("B's rows in the URL's database").isEqualTo(plainInsert.equals("ok") ? 1 : 0);
    }

    /**
     * With {@code useLocalSessionState=true} MySQL Connector/J's {@code setCatalog} skips a
     * database its cache already names: the pool goes back by SQL {@code USE}, which it always sends.
     */
    @ParameterizedTest
    @EnumSource(Choice.class)
    void withConnectorJsLocalSessionStateBIsBackInThePoolsDatabase(Choice choice) throws SQLException {
        String other = "wt38a_db_" + tag;
        mariaAdmin("CREATE DATABASE " + other);
        mariaCleanup.add("DROP DATABASE IF EXISTS " + other);
        LoomPoolDataSource ds = maria(Connector.MYSQL_CONNECTOR_J, 1, "useLocalSessionState=true");
        Seen b = mariaAfterA(ds, a -> {
            if (choice == Choice.SET_CATALOG) {
                a.setCatalog(other);
            } else {
                run(a, "USE " + other);
            }
            assertThat(str(a, "SELECT DATABASE()")).as("A is in the other database (test premise)").isEqualTo(other);
        }, c -> str(c, "SELECT DATABASE()"));
        assertThat(b.value()).as("%s", b).isEqualTo("test");
    }

    /**
     * The pool's connectionInitSql chooses the database by {@code USE}, which MySQL Connector/J's
     * {@code getCatalog()} does not see: after A's {@code USE} of another, B is back in the init
     * SQL's database, where a fresh connection of the pool is, not in the URL's.
     */
    @ParameterizedTest
    @EnumSource(Connector.class)
    void bIsBackInTheDatabaseTheInitSqlChose(Connector connector) throws SQLException {
        String initial = "wt38a_init_" + tag;
        String other = "wt38a_db_" + tag;
        for (String db : new String[] {initial, other}) {
            mariaAdmin("CREATE DATABASE " + db);
            mariaCleanup.add("DROP DATABASE IF EXISTS " + db);
        }
        LoomPoolDataSource ds = maria(connector, 1, null);
        ds.setConnectionInitSql("USE " + initial);
        Seen b = mariaAfterA(ds, a -> run(a, "USE " + other), c -> str(c, "SELECT DATABASE()"));
        assertThat(b.value()).as("%s", b).isEqualTo(initial);
    }

    /**
     * MySQL Connector/J cannot parse a CallableStatement of a versioned comment: its
     * {@code execute()} throws StringIndexOutOfBoundsException on the plain driver too. Through
     * the pool A gets what the plain driver gives, its handle goes on, and B's session is fresh.
     */
    @ParameterizedTest
    @EnumSource(Connector.class)
    void aCallTheDriverCannotParseAnswersAsThePlainDriverAndLeavesNothingForB(Connector connector)
            throws SQLException {
        String sql = "/*M!100000 SET @wt38a_b = 2 */";
        String plain;
        try (Connection c = DriverManager.getConnection(connector.url(null))) {
            plain = outcome(c, sql);
        }
        LoomPoolDataSource ds = maria(connector, 1, null);
        Seen b = mariaAfterA(ds, a -> {
            assertThat(outcome(a, sql)).as("A's execute through the pool").isEqualTo(plain);
            assertThat(str(a, "SELECT 'A goes on'")).isEqualTo("A goes on");
        }, c -> str(c, "SELECT @wt38a_b"));
        assertThat(b.value()).as("%s", b).isNull();
    }

    /** prepareCall then execute: "ok", or what was thrown, by class and message. */
    private static String outcome(Connection c, String sql) {
        try (CallableStatement cs = c.prepareCall(sql)) {
            cs.execute();
            return "ok";
        } catch (SQLException | RuntimeException e) {
            return e.getClass().getName() + ": " + e.getMessage();
        }
    }

    static Stream<Arguments> releases() {
        return each("COMMIT RELEASE", "ROLLBACK RELEASE", "COMMIT WORK AND NO CHAIN RELEASE");
    }

    /**
     * A turns foreign key checks off, inserts in a transaction, and ends it with RELEASE: the
     * server ends the session. A's next statement fails as on the plain driver (a connection
     * error, to which the pool adds why the handle ends), and the one after says the session A
     * relied on is gone (08003, the pool's name): never runs on a fresh connection with the checks
     * back on. What A committed is what the server committed.
     */
    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("releases")
    void aSessionTheServerEndedIsNotContinuedOnAFreshConnection(Connector connector, String end)
            throws SQLException {
        mariaTable();
        String plainNext;
        try (Connection plain = DriverManager.getConnection(connector.url(null))) {
            run(plain, "SET foreign_key_checks = 0");
            run(plain, "START TRANSACTION");
            run(plain, "INSERT INTO " + table + " (v) VALUES (1)");
            run(plain, end);
            plainNext = sqlState(() -> str(plain, "SELECT @@foreign_key_checks"));
        }
        assertThat(plainNext).as("the plain driver's next call (test premise)").startsWith("08");
        String plainCommitted = mariaValues();
        mariaAdmin("DELETE FROM " + table);

        LoomPoolDataSource ds = maria(connector, 1, null);
        try (Connection a = ds.getConnection()) {
            run(a, "SET foreign_key_checks = 0");
            run(a, "START TRANSACTION");
            run(a, "INSERT INTO " + table + " (v) VALUES (1)");
            run(a, end);
            assertThatThrownBy(() -> str(a, "SELECT @@foreign_key_checks")).as("A's next call: the driver's error")
                    .isInstanceOf(SQLException.class)
                    .satisfies(e -> assertThat(((SQLException) e).getSQLState()).startsWith("08"))
                    .satisfies(e -> assertThat(e.getSuppressed()).as("what the pool adds to it")
                            .anySatisfy(s -> assertThat(s).hasMessageContaining("pool '" + ds.getPoolName() + "'")
                                    .hasMessageContaining("session this handle relied on")));
            assertThatThrownBy(() -> str(a, "SELECT @@foreign_key_checks")).as("A's call after that")
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("pool '" + ds.getPoolName() + "'")
                    .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("08003"));
        }
        assertThat(mariaValues()).as("what A committed").isEqualTo(plainCommitted)
                .isEqualTo(end.startsWith("COMMIT") ? "1" : "none");
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, "SELECT @@foreign_key_checks")).as("B's foreign key checks").isEqualTo("1");
        }
    }

    interface Call {
        Object run() throws SQLException;
    }

    /** The SQLState the call fails with, or "no error: <its answer>". */
    static String sqlState(Call call) {
        try {
            return "no error: " + call.run();
        } catch (SQLException e) {
            return e.getSQLState();
        }
    }
}
