package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.jdbc.TestDatabase;
import dev.loompool.testsupport.PgBouncer;
import dev.loompool.testsupport.Prerequisites;
import java.sql.Connection;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Transactional;

/**
 * Issue 30 the way a Spring application meets it: {@code @Transactional(isolation = SERIALIZABLE)}
 * behind a real PgBouncer in transaction mode ({@code loompool.server-pooler=pgbouncer-transaction}),
 * with one server connection, so every transaction runs on the session the last one used.
 * DataSourceTransactionManager sets the isolation before it turns autocommit off and puts it back
 * after; with Boot's lazy connection fetch the proxy replays them on the connection it fetches.
 */
class PgBouncerIsolationTransactionsTest {

    private static PgBouncer bouncer;

    @BeforeAll
    static void startBouncer() throws Exception {
        Prerequisites.pgbouncer();
        Matcher m = Pattern.compile("//([^:/]+):(\\d+)/([^?]+)").matcher(TestDatabase.POSTGRES.url());
        assertThat(m.find()).as("the PostgreSQL test URL names host, port and database").isTrue();
        bouncer = PgBouncer.start(m.group(1), Integer.parseInt(m.group(2)), m.group(3), 1);
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS pgbiso_spring");
            s.execute("CREATE TABLE pgbiso_spring (id int PRIMARY KEY, isolation text)");
        }
    }

    @AfterAll
    static void stopBouncer() {
        if (bouncer != null) {
            bouncer.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"eager", "lazy"})
    void aSerializableTransactionRunsSerializableAndTheNextOneAtTheDefault(String fetch) throws Exception {
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement s = c.createStatement()) {
            s.execute("DELETE FROM pgbiso_spring");
        }
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                        LoomPoolAutoConfiguration.class, DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                        JdbcTemplateAutoConfiguration.class))
                .withUserConfiguration(Ledger.class)
                .withPropertyValues("spring.datasource.url=" + bouncer.jdbcUrl(""),
                        "loompool.server-pooler=pgbouncer-transaction", "loompool.min-size=0", "loompool.max-size=1",
                        "spring.datasource.connection-fetch=" + fetch)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Ledger ledger = context.getBean(Ledger.class);
                    assertThat(ledger.serializable(1)).isEqualTo("serializable");
                    assertThat(ledger.plain(2)).as("the next transaction, same server connection").isEqualTo("read committed");
                    assertThat(ledger.readOnlyRepeatable()).isEqualTo("repeatable read, read-only on");
                    assertThatThrownBy(ledger::readOnlyWrite).isInstanceOf(DataAccessException.class)
                            .hasMessageContaining("read-only transaction");
                    assertThat(ledger.outside()).as("autocommit after them").isEqualTo("read committed");
                    assertThat(ledger.serializable(3)).isEqualTo("serializable");
                });
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT string_agg(id || ':' || isolation, ',' ORDER BY id) FROM pgbiso_spring")) {
            rs.next();
            assertThat(rs.getString(1)).as("what each transaction committed")
                    .isEqualTo("1:serializable,2:read committed,3:serializable");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Ledger {

        private final JdbcTemplate jdbc;

        Ledger(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Transactional(isolation = Isolation.SERIALIZABLE)
        public String serializable(int id) {
            return record(id);
        }

        @Transactional
        public String plain(int id) {
            return record(id);
        }

        @Transactional(isolation = Isolation.REPEATABLE_READ, readOnly = true)
        public String readOnlyRepeatable() {
            return jdbc.queryForObject("SELECT current_setting('transaction_isolation') || ', read-only ' "
                    + "|| current_setting('transaction_read_only')", String.class);
        }

        @Transactional(isolation = Isolation.SERIALIZABLE, readOnly = true)
        public void readOnlyWrite() {
            jdbc.update("INSERT INTO pgbiso_spring VALUES (-1, 'read-only')");
        }

        public String outside() {
            return jdbc.queryForObject("SELECT current_setting('transaction_isolation')", String.class);
        }

        private String record(int id) {
            jdbc.update("INSERT INTO pgbiso_spring VALUES (?, current_setting('transaction_isolation'))", id);
            return jdbc.queryForObject("SELECT current_setting('transaction_isolation')", String.class);
        }
    }
}
