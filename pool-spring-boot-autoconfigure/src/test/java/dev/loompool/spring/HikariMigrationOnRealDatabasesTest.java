package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.TestDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * A team's HikariCP configuration, unchanged, run once under HikariCP 7.1 and once under loompool
 * on the real PostgreSQL and MariaDB: what borrower B gets after borrower A changed its session
 * (through JDBC or SQL), what the configuration's session keys (schema, init SQL, driver
 * properties, environment variables) give every borrower, and what a failure prints. Where
 * HikariCP lets A's change reach B, loompool must not do worse; where HikariCP gives B the
 * configured session, loompool must too.
 */
@ExtendWith(OutputCaptureExtension.class)
class HikariMigrationOnRealDatabasesTest {

    private static final String PG = TestDatabase.POSTGRES.url();
    private static final String MARIADB = TestDatabase.MARIADB.url();

    private interface Scenario {
        void run(DataSource ds, List<String> seen) throws SQLException;
    }

    private static ApplicationContextRunner runner(String url) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                        LoomPoolAutoConfiguration.class, DataSourceAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + url);
    }

    /** What the scenario saw under HikariCP (index 0), then under loompool (index 1). */
    private static List<List<String>> underBoth(ApplicationContextRunner configured, Scenario scenario) {
        List<List<String>> both = new ArrayList<>();
        for (boolean hikari : new boolean[] {true, false}) {
            List<String> seen = new ArrayList<>();
            ApplicationContextRunner r = hikari
                    ? configured.withPropertyValues("spring.datasource.type=" + HikariDataSource.class.getName())
                    : configured;
            r.run(context -> {
                assertThat(context).hasNotFailed();
                DataSource ds = context.getBean(DataSource.class);
                assertThat(ds).isInstanceOf(hikari ? HikariDataSource.class : LoomPoolDataSource.class);
                scenario.run(ds, seen);
            });
            both.add(seen);
        }
        return both;
    }

    @Test
    void postgresSchemaKeyIsEveryBorrowersSchemaAfterABorrowerMovedAway() throws Exception {
        exec(PG, "DROP SCHEMA IF EXISTS wt40a_s CASCADE", "CREATE SCHEMA wt40a_s",
                "CREATE TABLE wt40a_s.wt40a_orders (id int)", "INSERT INTO wt40a_s.wt40a_orders VALUES (1), (2)");
        try {
            List<List<String>> both = underBoth(runner(PG).withPropertyValues("spring.datasource.hikari.schema=wt40a_s",
                    "spring.datasource.hikari.maximum-pool-size=1"), (ds, seen) -> {
                        try (Connection a = ds.getConnection(); Statement s = a.createStatement()) {
                            seen.add("A " + a.getSchema() + " " + one(s, "SELECT count(*) FROM wt40a_orders"));
                            a.setSchema("public");
                        }
                        try (Connection b = ds.getConnection(); Statement s = b.createStatement()) {
                            seen.add("B " + b.getSchema() + " " + one(s, "SELECT count(*) FROM wt40a_orders"));
                        }
                    });
            assertThat(both.get(0)).as("HikariCP").containsExactly("A wt40a_s 2", "B wt40a_s 2");
            assertThat(both.get(1)).as("loompool").isEqualTo(both.get(0));
        } finally {
            exec(PG, "DROP SCHEMA IF EXISTS wt40a_s CASCADE");
        }
    }

    @Test
    void postgresInitSqlSearchPathIsEveryBorrowersAfterABorrowerChangedItsSessionBySql() throws Exception {
        exec(PG, "DROP SCHEMA IF EXISTS wt40a_t CASCADE", "CREATE SCHEMA wt40a_t",
                "CREATE TABLE wt40a_t.wt40a_items (id int)", "INSERT INTO wt40a_t.wt40a_items VALUES (1), (2), (3)");
        try {
            List<List<String>> both = underBoth(runner(PG).withPropertyValues(
                    "spring.datasource.hikari.connection-init-sql=SET search_path TO wt40a_t",
                    "spring.datasource.hikari.maximum-pool-size=1"), (ds, seen) -> {
                        try (Connection a = ds.getConnection(); Statement s = a.createStatement()) {
                            seen.add("A " + one(s, "SELECT count(*) FROM wt40a_items"));
                            s.execute("SET statement_timeout = 77000"); // session state: loompool resets it
                        }
                        try (Connection b = ds.getConnection(); Statement s = b.createStatement()) {
                            seen.add("B " + one(s, "SELECT count(*) FROM wt40a_items") + " " + one(s, "SHOW search_path"));
                        }
                    });
            assertThat(both.get(0)).as("HikariCP").containsExactly("A 3", "B 3 wt40a_t");
            assertThat(both.get(1)).as("loompool").isEqualTo(both.get(0));
        } finally {
            exec(PG, "DROP SCHEMA IF EXISTS wt40a_t CASCADE");
        }
    }

    @Test
    void postgresHikariEnvironmentVariablesGiveTheSameSession() {
        ApplicationContextRunner configured = runner(PG).withInitializer(context -> context.getEnvironment()
                .getPropertySources().addFirst(new SystemEnvironmentPropertySource("test-systemEnvironment", Map.of(
                        "SPRING_DATASOURCE_HIKARI_CONNECTIONINITSQL", "SET application_name = 'env-init'",
                        "SPRING_DATASOURCE_HIKARI_TRANSACTIONISOLATION", "TRANSACTION_SERIALIZABLE",
                        "SPRING_DATASOURCE_HIKARI_READONLY", "true",
                        "SPRING_DATASOURCE_HIKARI_MAXIMUMPOOLSIZE", "2",
                        "SPRING_DATASOURCE_HIKARI_DATASOURCEPROPERTIES_OPTIONS", "-c lock_timeout=2345"))));
        List<List<String>> both = underBoth(configured, (ds, seen) -> {
            for (int i = 0; i < 2; i++) {
                try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                    seen.add(one(s, "SHOW application_name") + " " + one(s, "SHOW transaction_isolation") + " "
                            + one(s, "SHOW transaction_read_only") + " " + one(s, "SHOW lock_timeout"));
                    s.execute("SET application_name = 'changed-by-a'");
                }
            }
        });
        // pgjdbc applies read-only only to transactions (readOnlyMode=transaction): off under autocommit.
        // HikariCP gives the second borrower the first's application_name; loompool resets it.
        assertThat(both.get(0)).as("HikariCP").containsExactly("env-init serializable off 2345ms",
                "changed-by-a serializable off 2345ms");
        assertThat(both.get(1)).as("loompool").containsExactly("env-init serializable off 2345ms",
                "env-init serializable off 2345ms");
    }

    @Test
    void mariadbSessionKeysAreEveryBorrowersAfterABorrowerChangedThemByJdbcAndSql() throws Exception {
        exec(MARIADB, "DROP TABLE IF EXISTS wt40a_m", "CREATE TABLE wt40a_m (id int) ENGINE=InnoDB");
        try {
            List<List<String>> both = underBoth(runner(MARIADB).withPropertyValues(
                    "spring.datasource.hikari.maximum-pool-size=1", "spring.datasource.hikari.auto-commit=false",
                    "spring.datasource.hikari.transaction-isolation=TRANSACTION_READ_COMMITTED",
                    "spring.datasource.hikari.connection-init-sql=SET SESSION sql_mode = 'ANSI_QUOTES,STRICT_ALL_TABLES'"),
                    (ds, seen) -> {
                        try (Connection a = ds.getConnection(); Statement s = a.createStatement()) {
                            seen.add("A " + session(s) + " autocommit " + a.getAutoCommit());
                            s.executeUpdate("INSERT INTO wt40a_m VALUES (1)"); // closed without commit
                        }
                        try (Connection a = ds.getConnection(); Statement s = a.createStatement()) {
                            a.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
                            a.setReadOnly(true);
                            s.execute("SET SESSION sql_mode = ''");
                            a.commit();
                        }
                        try (Connection b = ds.getConnection(); Statement s = b.createStatement()) {
                            seen.add("B " + session(s) + " autocommit " + b.getAutoCommit() + " readOnly "
                                    + b.isReadOnly() + " rows " + one(s, "SELECT count(*) FROM wt40a_m"));
                            b.rollback();
                        }
                    });
            // HikariCP puts back what A changed through JDBC, not what it changed through SQL: B gets A's sql_mode.
            assertThat(both.get(0)).as("HikariCP").containsExactly(
                    "A READ-COMMITTED ANSI_QUOTES,STRICT_ALL_TABLES autocommit false",
                    "B READ-COMMITTED  autocommit false readOnly false rows 0");
            assertThat(both.get(1)).as("loompool").containsExactly(
                    "A READ-COMMITTED ANSI_QUOTES,STRICT_ALL_TABLES autocommit false",
                    "B READ-COMMITTED ANSI_QUOTES,STRICT_ALL_TABLES autocommit false readOnly false rows 0");
            assertThat(count(MARIADB, "wt40a_m")).isZero();
        } finally {
            exec(MARIADB, "DROP TABLE IF EXISTS wt40a_m");
        }
    }

    @Test
    void mariadbDriverSessionVariablesSurviveABorrowerWhoseSessionIsReset() {
        List<List<String>> both = underBoth(runner(MARIADB).withPropertyValues(
                "spring.datasource.hikari.maximum-pool-size=1",
                "spring.datasource.hikari.data-source-properties.sessionVariables=wait_timeout=1234,sql_mode='ANSI_QUOTES'"),
                (ds, seen) -> {
                    for (String who : new String[] {"A", "B"}) {
                        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                            seen.add(who + " " + one(s, "SELECT @@session.wait_timeout") + " "
                                    + one(s, "SELECT @@session.sql_mode"));
                            s.execute("SET @wt40a_token = 'from-" + who + "'"); // session state
                        }
                    }
                });
        assertThat(both.get(0)).as("HikariCP").containsExactly("A 1234 ANSI_QUOTES", "B 1234 ANSI_QUOTES");
        assertThat(both.get(1)).as("loompool").isEqualTo(both.get(0));
    }

    @Test
    void mariadbAUserVariableOfBorrowerAIsNotSeenByBorrowerB() {
        List<List<String>> both = underBoth(runner(MARIADB).withPropertyValues("spring.datasource.hikari.maximum-pool-size=1"),
                (ds, seen) -> {
                    try (Connection a = ds.getConnection(); Statement s = a.createStatement()) {
                        s.execute("SET @wt40a_tenant = 'tenant-a'");
                    }
                    try (Connection b = ds.getConnection(); Statement s = b.createStatement()) {
                        seen.add("B sees " + one(s, "SELECT @wt40a_tenant"));
                    }
                });
        // HikariCP hands A's session to B as it is.
        assertThat(both.get(0)).as("HikariCP").containsExactly("B sees tenant-a");
        assertThat(both.get(1)).as("loompool").containsExactly("B sees null");
    }

    @Test
    void mariadbReadOnlyPoolTakesBackItsReadOnlyAndIsolationAfterABorrowerWroteAndChangedIsolationBySql()
            throws Exception {
        exec(MARIADB, "DROP TABLE IF EXISTS wt40a_ro", "CREATE TABLE wt40a_ro (id int) ENGINE=InnoDB");
        try {
            List<List<String>> both = underBoth(runner(MARIADB).withPropertyValues(
                    "spring.datasource.hikari.maximum-pool-size=1", "spring.datasource.hikari.read-only=true",
                    "spring.datasource.hikari.transaction-isolation=TRANSACTION_READ_COMMITTED"), (ds, seen) -> {
                        try (Connection a = ds.getConnection(); Statement s = a.createStatement()) {
                            a.setReadOnly(false);
                            s.executeUpdate("INSERT INTO wt40a_ro VALUES (1)");
                            s.execute("SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE");
                        }
                        try (Connection b = ds.getConnection(); Statement s = b.createStatement()) {
                            seen.add("B readOnly " + b.isReadOnly() + " " + one(s, "SELECT @@session.tx_isolation"));
                            try {
                                s.executeUpdate("INSERT INTO wt40a_ro VALUES (2)");
                                seen.add("B's write accepted");
                            } catch (SQLException e) {
                                seen.add("B's write refused");
                            }
                        }
                    });
            // HikariCP puts back the read-only A changed through JDBC, not the isolation A changed through SQL.
            assertThat(both.get(0)).as("HikariCP").containsExactly("B readOnly true SERIALIZABLE", "B's write refused");
            assertThat(both.get(1)).as("loompool").containsExactly("B readOnly true READ-COMMITTED", "B's write refused");
        } finally {
            exec(MARIADB, "DROP TABLE IF EXISTS wt40a_ro");
        }
    }

    @Test
    void mariadbCatalogKeyIsEveryBorrowersDatabaseAfterABorrowerMovedAwayByJdbcOrSql() throws Exception {
        exec(MARIADB, "DROP DATABASE IF EXISTS wt40a_db", "CREATE DATABASE wt40a_db",
                "CREATE TABLE wt40a_db.wt40a_c (id int)", "INSERT INTO wt40a_db.wt40a_c VALUES (1), (2)");
        try {
            List<List<String>> both = underBoth(runner(MARIADB).withPropertyValues(
                    "spring.datasource.hikari.maximum-pool-size=1", "spring.datasource.hikari.catalog=wt40a_db"),
                    (ds, seen) -> {
                        try (Connection a = ds.getConnection(); Statement s = a.createStatement()) {
                            seen.add("A " + one(s, "SELECT DATABASE()") + " " + one(s, "SELECT count(*) FROM wt40a_c"));
                            a.setCatalog("test");
                        }
                        try (Connection b = ds.getConnection(); Statement s = b.createStatement()) {
                            seen.add("B " + one(s, "SELECT DATABASE()") + " " + one(s, "SELECT count(*) FROM wt40a_c"));
                            s.execute("USE test");
                        }
                        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                            seen.add("C " + one(s, "SELECT DATABASE()"));
                        }
                    });
            // HikariCP puts back the catalog changed through JDBC, not the one changed by USE.
            assertThat(both.get(0)).as("HikariCP").containsExactly("A wt40a_db 2", "B wt40a_db 2", "C test");
            assertThat(both.get(1)).as("loompool").containsExactly("A wt40a_db 2", "B wt40a_db 2", "C wt40a_db");
        } finally {
            exec(MARIADB, "DROP DATABASE IF EXISTS wt40a_db");
        }
    }

    @Test
    void postgresASearchPathSetBySqlStaysWithItsHandleWhileAnotherBorrowsAndNeverReachesIt() throws Exception {
        exec(PG, "DROP SCHEMA IF EXISTS wt40a_u CASCADE", "CREATE SCHEMA wt40a_u",
                "CREATE TABLE wt40a_u.wt40a_only_here (id int)", "INSERT INTO wt40a_u.wt40a_only_here VALUES (1), (2)");
        try {
            List<List<String>> both = underBoth(runner(PG).withPropertyValues("spring.datasource.hikari.maximum-pool-size=2"),
                    (ds, seen) -> {
                        for (String set : new String[] {"SET search_path TO wt40a_u",
                            "SELECT set_config('search_path', 'wt40a_u', false)"}) {
                            try (Connection a = ds.getConnection(); Statement sa = a.createStatement()) {
                                sa.execute(set);
                                try (Connection b = ds.getConnection(); Statement sb = b.createStatement()) {
                                    seen.add("B " + one(sb, "SHOW search_path"));
                                    seen.add("A " + one(sa, "SELECT count(*) FROM wt40a_only_here"));
                                    seen.add("B again " + one(sb, "SHOW search_path"));
                                }
                            }
                        }
                    });
            assertThat(both.get(0)).as("HikariCP").containsExactly("B \"$user\", public", "A 2",
                    "B again \"$user\", public", "B \"$user\", public", "A 2", "B again \"$user\", public");
            assertThat(both.get(1)).as("loompool").isEqualTo(both.get(0));
        } finally {
            exec(PG, "DROP SCHEMA IF EXISTS wt40a_u CASCADE");
        }
    }

    @Test
    void aWrongPasswordOrDeadDatabaseGivenThroughHikariKeysIsNeverPrinted(CapturedOutput output) {
        ApplicationContextRunner configured = runner(PG).withPropertyValues(
                "spring.datasource.hikari.jdbc-url=jdbc:postgresql://127.0.0.1:1/test?user=app&password=hunter2url",
                "spring.datasource.hikari.password=hunter2key", "spring.datasource.hikari.connection-timeout=1000",
                "spring.datasource.hikari.connection-init-sql=SET application_name = 'x'");
        List<List<String>> both = underBoth(configured, (ds, seen) -> {
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                s.execute("SELECT 1");
                seen.add("connected");
            } catch (SQLException e) {
                StringWriter trace = new StringWriter();
                e.printStackTrace(new PrintWriter(trace));
                seen.add("failed" + (trace.toString().contains("hunter2") ? " naming the password" : ""));
            }
        });
        assertThat(both.get(0)).as("HikariCP").containsExactly("failed");
        assertThat(both.get(1)).as("loompool").isEqualTo(both.get(0));
        assertThat(output.getAll()).doesNotContain("hunter2");
    }

    private static String session(Statement s) throws SQLException {
        return one(s, "SELECT @@session.tx_isolation") + " " + one(s, "SELECT @@session.sql_mode");
    }

    private static String one(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void exec(String url, String... sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            for (String one : sql) {
                s.execute(one);
            }
        }
    }

    private static int count(String url, String table) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            return Integer.parseInt(one(s, "SELECT count(*) FROM " + table));
        }
    }
}
