package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The session keys of {@code spring.datasource.hikari.*} (auto-commit, read-only, isolation,
 * data-source-properties) on a real PostgreSQL: the same configuration is run once under HikariCP
 * 7.1 (spring.datasource.type) and once under loompool, and what borrowers see and what ends up
 * committed must be the same. Each scenario records its observations; the two lists are compared.
 */
@org.junit.jupiter.api.extension.ExtendWith(org.springframework.boot.test.system.OutputCaptureExtension.class)
class HikariSessionKeysOnPostgresTest {

    private static final String URL = TestDatabase.POSTGRES.url();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                    LoomPoolAutoConfiguration.class, DataSourceAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + URL, "spring.datasource.hikari.maximum-pool-size=1");

    private interface Scenario {
        void run(DataSource ds, String table, List<String> seen) throws SQLException;
    }

    /** The observations under HikariCP, then under loompool, each on a table of its own. */
    private List<List<String>> underBoth(Scenario scenario, String... properties) {
        List<List<String>> both = new ArrayList<>();
        for (boolean hikari : new boolean[] {true, false}) {
            List<String> seen = new ArrayList<>();
            String table = "hk_" + UUID.randomUUID().toString().replace("-", "");
            execRaw("CREATE TABLE " + table + " (id int)");
            try {
                ApplicationContextRunner r = runner.withPropertyValues(properties);
                if (hikari) {
                    r = r.withPropertyValues("spring.datasource.type=" + HikariDataSource.class.getName());
                }
                r.run(context -> {
                    assertThat(context).hasNotFailed();
                    DataSource ds = context.getBean(DataSource.class);
                    assertThat(ds).isInstanceOf(hikari ? HikariDataSource.class : LoomPoolDataSource.class);
                    scenario.run(ds, table, seen);
                });
                seen.add("committed rows: " + countRaw(table));
            } finally {
                execRaw("DROP TABLE " + table);
            }
            both.add(seen);
        }
        return both;
    }

    @Test
    void autoCommitFalseAWriteNotCommittedIsRolledBackAndNeverSeenOrCommittedByTheNextBorrower() {
        List<List<String>> both = underBoth((ds, table, seen) -> {
            try (Connection a = ds.getConnection(); Statement s = a.createStatement()) {
                seen.add("A autoCommit " + a.getAutoCommit());
                s.executeUpdate("INSERT INTO " + table + " VALUES (1)");
                // closed without commit()
            }
            try (Connection b = ds.getConnection(); Statement s = b.createStatement()) {
                seen.add("B autoCommit " + b.getAutoCommit());
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
                    rs.next();
                    seen.add("B sees " + rs.getInt(1));
                }
                s.executeUpdate("INSERT INTO " + table + " VALUES (2)");
                b.commit();
            }
        }, "spring.datasource.hikari.auto-commit=false");
        assertThat(both.get(0)).as("HikariCP").containsExactly("A autoCommit false", "B autoCommit false", "B sees 0",
                "committed rows: 1");
        assertThat(both.get(1)).as("loompool").isEqualTo(both.get(0));
    }

    @Test
    void autoCommitFalseACommittedWriteInSeveralStatementsIsKeptWhole() {
        List<List<String>> both = underBoth((ds, table, seen) -> {
            try (Connection a = ds.getConnection(); Statement s = a.createStatement()) {
                s.executeUpdate("INSERT INTO " + table + " VALUES (1)");
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
                    rs.next();
                    seen.add("A sees its own " + rs.getInt(1));
                }
                s.executeUpdate("INSERT INTO " + table + " VALUES (2)");
                a.rollback();
                s.executeUpdate("INSERT INTO " + table + " VALUES (3)");
                a.commit();
            }
        }, "spring.datasource.hikari.auto-commit=false");
        assertThat(both.get(0)).as("HikariCP").containsExactly("A sees its own 1", "committed rows: 1");
        assertThat(both.get(1)).as("loompool").isEqualTo(both.get(0));
    }

    @Test
    void readOnlyWithAutoCommitFalseRefusesTheWriteAsUnderHikari() {
        List<List<String>> both = underBoth((ds, table, seen) -> {
            try (Connection a = ds.getConnection(); Statement s = a.createStatement()) {
                seen.add("readOnly " + a.isReadOnly());
                try {
                    s.executeUpdate("INSERT INTO " + table + " VALUES (1)");
                    a.commit();
                    seen.add("write accepted");
                } catch (SQLException e) {
                    seen.add("write refused " + e.getSQLState());
                    a.rollback();
                }
            }
        }, "spring.datasource.hikari.auto-commit=false", "spring.datasource.hikari.read-only=true");
        assertThat(both.get(0)).as("HikariCP").contains("readOnly true", "committed rows: 0");
        assertThat(both.get(1)).as("loompool").isEqualTo(both.get(0));
    }

    @Test
    void isolationAndDriverPropertiesReachTheSessionAndABorrowersChangeDoesNotReachTheNext() {
        List<List<String>> both = underBoth((ds, table, seen) -> {
            try (Connection a = ds.getConnection(); Statement s = a.createStatement()) {
                seen.add(show(s, "transaction_isolation"));
                seen.add(show(s, "application_name"));
                seen.add(show(s, "statement_timeout"));
                a.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
                a.setReadOnly(true);
                seen.add(show(s, "transaction_isolation"));
            }
            try (Connection b = ds.getConnection(); Statement s = b.createStatement()) {
                seen.add("B " + show(s, "transaction_isolation") + " readOnly " + b.isReadOnly());
                s.executeUpdate("INSERT INTO " + table + " VALUES (1)");
            }
        }, "spring.datasource.hikari.transaction-isolation=TRANSACTION_REPEATABLE_READ",
                "spring.datasource.hikari.data-source-properties.ApplicationName=orders-app",
                "spring.datasource.hikari.data-source-properties.options=-c statement_timeout=4321");
        assertThat(both.get(0)).as("HikariCP").containsExactly("repeatable read", "orders-app", "4321ms",
                "serializable", "B repeatable read readOnly false", "committed rows: 1");
        assertThat(both.get(1)).as("loompool").isEqualTo(both.get(0));
    }

    @Test
    void aBorrowerTurningAutoCommitOnOrReadOnlyOffDoesNotChangeTheNextBorrowersSession() {
        List<List<String>> both = underBoth((ds, table, seen) -> {
            try (Connection a = ds.getConnection(); Statement s = a.createStatement()) {
                a.setAutoCommit(true);
                a.setReadOnly(false);
                s.executeUpdate("INSERT INTO " + table + " VALUES (1)");
            }
            try (Connection b = ds.getConnection(); Statement s = b.createStatement()) {
                seen.add("B autoCommit " + b.getAutoCommit() + " readOnly " + b.isReadOnly());
                try {
                    s.executeUpdate("INSERT INTO " + table + " VALUES (2)");
                    seen.add("B's write accepted");
                } catch (SQLException e) {
                    seen.add("B's write refused " + e.getSQLState());
                }
                b.rollback();
            }
        }, "spring.datasource.hikari.auto-commit=false", "spring.datasource.hikari.read-only=true");
        assertThat(both.get(0)).as("HikariCP").containsExactly("B autoCommit false readOnly true",
                "B's write refused 25006", "committed rows: 1");
        assertThat(both.get(1)).as("loompool").isEqualTo(both.get(0));
    }

    @Test
    void withoutAnIsolationKeyABorrowersIsolationAndCatalogChangesDoNotReachTheNext() {
        List<List<String>> both = underBoth((ds, table, seen) -> {
            try (Connection a = ds.getConnection(); Statement s = a.createStatement()) {
                seen.add("A " + show(s, "transaction_isolation"));
                a.commit(); // the SHOW began a transaction: the level can change only between them
                a.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
                a.setSchema("pg_catalog");
                s.executeUpdate("INSERT INTO public." + table + " VALUES (1)");
                a.commit();
            }
            try (Connection b = ds.getConnection(); Statement s = b.createStatement()) {
                seen.add("B " + show(s, "transaction_isolation") + " schema " + b.getSchema());
                b.rollback();
            }
        }, "spring.datasource.hikari.auto-commit=false");
        // HikariCP 7.1 resets the isolation it saw changed, but not a schema it was not configured with:
        // B inherits A's pg_catalog. loompool must do at least as well.
        assertThat(both.get(0)).as("HikariCP").containsExactly("A read committed", "B read committed schema pg_catalog",
                "committed rows: 1");
        assertThat(both.get(1)).as("loompool").containsExactly("A read committed", "B read committed schema public",
                "committed rows: 1");
    }

    @Test
    void withAutoCommitFalseTheInitSqlSurvivesTheBorrowersRollbacks() {
        List<List<String>> both = underBoth((ds, table, seen) -> {
            for (int i = 0; i < 2; i++) {
                try (Connection a = ds.getConnection(); Statement s = a.createStatement()) {
                    seen.add(show(s, "application_name") + " " + show(s, "lock_timeout"));
                    s.executeUpdate("INSERT INTO " + table + " VALUES (" + i + ")");
                    a.rollback();
                    seen.add("after rollback " + show(s, "application_name") + " " + show(s, "lock_timeout"));
                    a.commit();
                }
            }
        }, "spring.datasource.hikari.auto-commit=false",
                "spring.datasource.hikari.connection-init-sql=SET application_name = 'from-init'; SET lock_timeout = '1234ms'");
        // HikariCP 7.1 leaves its init SQL in the first borrower's transaction: that borrower's rollback undoes it
        // for good (isolate-internal-queries=false). loompool must do at least as well: every borrower gets it.
        assertThat(both.get(0)).as("HikariCP").startsWith("from-init 1234ms").contains("committed rows: 0")
                .doesNotContain("after rollback from-init 1234ms");
        assertThat(both.get(1)).as("loompool").containsExactly("from-init 1234ms", "after rollback from-init 1234ms",
                "from-init 1234ms", "after rollback from-init 1234ms", "committed rows: 0");
    }

    @Test
    void noPasswordFromTheUrlOrTheHikariDriverPropertiesIsLoggedWhenThePoolStartsAndStops(
            org.springframework.boot.test.system.CapturedOutput output) {
        runner.withPropertyValues("spring.datasource.url=" + URL + "&password=hunter2url",
                "spring.datasource.hikari.data-source-properties.password=hunter2prop",
                "spring.datasource.hikari.data-source-properties.ApplicationName=secretive",
                "spring.datasource.hikari.pool-name=orders", "spring.datasource.hikari.allow-pool-suspension=true")
                .run(context -> {
                    if (context.getStartupFailure() == null) {
                        try (Connection c = context.getBean(DataSource.class).getConnection(); Statement s = c.createStatement()) {
                            assertThat(show(s, "application_name")).isEqualTo("secretive");
                        }
                    }
                });
        assertThat(output.getAll()).contains("loompool 'orders' takes these HikariCP settings").doesNotContain("hunter2");
    }

    private static String show(Statement s, String setting) throws SQLException {
        try (ResultSet rs = s.executeQuery("SHOW " + setting)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void execRaw(String sql) {
        try (Connection c = DriverManager.getConnection(URL); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int countRaw(String table) {
        try (Connection c = DriverManager.getConnection(URL); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
