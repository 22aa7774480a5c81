package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.testsupport.PgCluster;
import dev.loompool.testsupport.Prerequisites;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
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
import org.springframework.transaction.annotation.Transactional;

/**
 * DESIGN.md §7 the way a Spring application uses it: {@code loompool.replicas} names a real
 * streaming standby, and {@code @Transactional(readOnly = true)} reads there while every other
 * transaction runs on the primary; with Boot's lazy connection fetch on top too.
 */
class ReadReplicaTransactionsTest {

    private static PgCluster primary;
    private static PgCluster standby;

    @BeforeAll
    static void startClusters() throws Exception {
        primary = PgCluster.startWith(Prerequisites.postgresBinaries(), "shop", "CREATE TABLE orders (id int PRIMARY KEY)");
        standby = primary.startStandbyCaughtUp();
    }

    @AfterAll
    static void stopClusters() {
        if (standby != null) {
            standby.close();
        }
        if (primary != null) {
            primary.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"eager", "lazy"})
    void readOnlyTransactionsReadFromTheReplicaAndTheRestWritesToThePrimary(String fetch) {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                        LoomPoolAutoConfiguration.class, DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                        JdbcTemplateAutoConfiguration.class))
                .withUserConfiguration(Shop.class)
                .withPropertyValues("spring.datasource.url=" + primary.jdbcUrl("shop", ""),
                        "loompool.replicas=" + standby.jdbcUrl("shop", ""), "loompool.min-size=0",
                        "spring.datasource.connection-fetch=" + fetch)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Shop shop = context.getBean(Shop.class);
                    assertThat(shop.placeOrder(1)).as("a read-write transaction").isEqualTo("primary:" + primary.port());
                    primary.waitForStandby(standby, Duration.ofSeconds(30));
                    assertThat(shop.report()).as("a read-only one").isEqualTo("standby:" + standby.port() + " orders=1");
                    assertThatThrownBy(() -> shop.sneakyWrite(2)).isInstanceOf(DataAccessException.class)
                            .hasMessageContaining("read-only transaction");
                    assertThat(shop.placeOrder(3)).isEqualTo("primary:" + primary.port());
                    primary.waitForStandby(standby, Duration.ofSeconds(30));
                    assertThat(shop.report()).isEqualTo("standby:" + standby.port() + " orders=2");
                });
        try (Connection c = primary.admin("shop"); Statement s = c.createStatement()) {
            s.execute("TRUNCATE orders");
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Shop {

        private final JdbcTemplate jdbc;

        Shop(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Transactional
        public String placeOrder(int id) {
            jdbc.update("INSERT INTO orders VALUES (?)", id);
            return where();
        }

        @Transactional(readOnly = true)
        public String report() {
            Integer count = jdbc.queryForObject("SELECT count(*) FROM orders", Integer.class);
            return where() + " orders=" + count;
        }

        /** A write in a read-only transaction: the replica refuses it, and it never reaches the primary. */
        @Transactional(readOnly = true)
        public void sneakyWrite(int id) {
            jdbc.update("INSERT INTO orders VALUES (?)", id);
        }

        private String where() {
            return jdbc.queryForObject("SELECT CASE WHEN pg_is_in_recovery() THEN 'standby:' ELSE 'primary:' END"
                    + " || inet_server_port()", String.class);
        }
    }
}
