package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.jdbc.LoomConnection;
import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.TestDatabase;
import java.sql.Connection;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.DataSourceUnwrapper;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Spring's transaction boundary is HikariCP's (DESIGN.md §5, issue 26 item 8): the physical
 * connection is bound when the transaction begins, within the acquire timeout, not at its first
 * statement. So an exhausted pool fails the begin with Spring's
 * {@code CannotCreateTransactionException}, and the transaction timeout does not count the wait for
 * a connection. On the real PostgreSQL, with one connection.
 */
class TransactionBeginTest {

    private final String table = "begin_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

    private ApplicationContextRunner runner(String acquireTimeout) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                        LoomPoolAutoConfiguration.class, DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                        JdbcTemplateAutoConfiguration.class))
                .withUserConfiguration(Services.class)
                .withBean("table", String.class, () -> table)
                .withPropertyValues("spring.datasource.url=" + TestDatabase.POSTGRES.url(), "loompool.max-size=1",
                        "loompool.min-size=0", "loompool.acquire-timeout=" + acquireTimeout);
    }

    private static LoomPoolDataSource pool(ApplicationContext context) {
        return DataSourceUnwrapper.unwrap(context.getBean(javax.sql.DataSource.class), LoomPoolDataSource.class);
    }

    /** Takes the pool's only connection and keeps it until closed. */
    private static Connection holdTheOnlyConnection(LoomPoolDataSource ds) throws Exception {
        Connection held = ds.getConnection();
        held.unwrap(LoomConnection.class).pin();
        try (Statement st = held.createStatement()) {
            st.execute("SELECT 1");
        }
        assertThat(ds.getPool().stats().inUse()).isEqualTo(1);
        return held;
    }

    /**
     * With the pool's autocommit on, the begin's {@code setAutoCommit(false)} binds; with it off
     * ({@code loompool.auto-commit=false}), DataSourceTransactionManager only asks
     * {@code getAutoCommit()}, which binds then: such a handle is in a transaction from its first use.
     */
    @ParameterizedTest(name = "loompool.auto-commit={0}")
    @ValueSource(booleans = {true, false})
    void aTransactionThatFindsThePoolExhaustedFailsAtBeginWithCannotCreateTransactionExceptionAsWithHikari(
            boolean autoCommit) {
        runner("1s").withPropertyValues("loompool.auto-commit=" + autoCommit).run(context -> {
            Services services = context.getBean(Services.class);
            services.createTable();
            LoomPoolDataSource ds = pool(context);
            TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            AtomicBoolean bodyRan = new AtomicBoolean();
            try (Connection held = holdTheOnlyConnection(ds)) {
                assertThatThrownBy(services::insert).as("@Transactional")
                        .isInstanceOf(CannotCreateTransactionException.class)
                        .hasCauseInstanceOf(SQLTransientConnectionException.class);
                assertThatThrownBy(() -> tx.executeWithoutResult(status -> bodyRan.set(true)))
                        .as("TransactionTemplate").isInstanceOf(CannotCreateTransactionException.class)
                        .hasCauseInstanceOf(SQLTransientConnectionException.class);
            }
            assertThat(bodyRan).as("the transaction's body never ran").isFalse();
            assertThat(services.count()).isZero();
            assertThat(ds.getPool().stats().inUse()).isZero();
            services.dropTable();
        });
    }

    @Test
    void aTransactionTimeoutDoesNotCountTheWaitForAConnectionAtBegin() {
        runner("20s").run(context -> {
            Services services = context.getBean(Services.class);
            services.createTable();
            LoomPoolDataSource ds = pool(context);
            CountDownLatch held = new CountDownLatch(1);
            CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
                try (Connection c = holdTheOnlyConnection(ds)) {
                    held.countDown();
                    // the transaction below is waiting for this connection: hold it 3 s more, past its 2 s timeout
                    while (ds.getPool().stats().pending() == 0) {
                        Thread.sleep(5);
                    }
                    Thread.sleep(3000);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
            long start = System.nanoTime();
            services.insertWithinTwoSeconds(); // @Transactional(timeout = 2): waits ~3 s at its begin, then commits
            long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            holder.get(10, TimeUnit.SECONDS);
            assertThat(waitedMillis).as("it did wait for the connection").isGreaterThanOrEqualTo(3000);
            assertThat(services.count()).as("committed, as with HikariCP").isEqualTo(1);
            services.dropTable();
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class Services {

        private final JdbcTemplate jdbc;
        private final String table;

        Services(JdbcTemplate jdbc, String table) {
            this.jdbc = jdbc;
            this.table = table;
        }

        @Transactional // committed also where the pool's autocommit is off
        public void createTable() {
            jdbc.execute("CREATE TABLE " + table + " (id INT)");
        }

        @Transactional
        public void dropTable() {
            jdbc.execute("DROP TABLE " + table);
        }

        public int count() {
            return jdbc.queryForObject("SELECT COUNT(*) FROM " + table, Integer.class);
        }

        @Transactional
        public void insert() {
            jdbc.update("INSERT INTO " + table + " VALUES (1)");
        }

        @Transactional(timeout = 2)
        public void insertWithinTwoSeconds() {
            jdbc.update("INSERT INTO " + table + " VALUES (1)");
        }
    }
}
