package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.jdbc.LoomConnection;
import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.PinReason;
import dev.loompool.jdbc.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.boot.jdbc.DataSourceUnwrapper;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcClientAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A connection used inside a Spring transaction stays on one physical connection until the
 * transaction completes, for @Transactional, JdbcTemplate, JdbcClient and TransactionTemplate; and
 * REQUIRES_NEW gets a physical connection of its own. On H2, and on PostgreSQL when it answers; on
 * the auto-configured pool, on one the application builds itself with DataSourceBuilder, and with
 * Boot's own lazy connection fetch wrapped around the pool.
 */
class TransactionPinningTest {

    /** The suffix of the runs on a pool the application defines itself instead of the auto-configured one. */
    private static final String OWN_POOL = "-own-pool";
    /** The suffix of the runs with Boot's own lazy connection fetch on top (spring.datasource.connection-fetch=lazy). */
    private static final String LAZY_FETCH = "-lazy-fetch";

    private ApplicationContextRunner runner(String database) {
        String url;
        String sessionSql;
        if (database.startsWith("h2")) {
            url = LoomPoolAutoConfigurationTest.h2();
            sessionSql = "SELECT SESSION_ID()";
        } else {
            url = TestDatabase.POSTGRES.url(); // skipped without PostgreSQL, failed under CI
            sessionSql = "SELECT pg_backend_pid()";
        }
        String table = "pin_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class, DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                        JdbcTemplateAutoConfiguration.class, JdbcClientAutoConfiguration.class))
                .withUserConfiguration(Services.class)
                .withBean(Inner.class)
                .withBean("sessionSql", String.class, () -> sessionSql)
                .withBean("table", String.class, () -> table)
                .withPropertyValues("spring.datasource.url=" + url, "loompool.max-size=4", "loompool.min-size=0");
        if (database.endsWith(LAZY_FETCH)) {
            return runner.withPropertyValues("spring.datasource.connection-fetch=lazy");
        }
        if (!database.endsWith(OWN_POOL)) {
            return runner;
        }
        // The application's own pool, built with DataSourceBuilder: the auto-configured one backs off.
        return runner.withBean("dataSource", DataSource.class, () -> {
            LoomPoolDataSource own = DataSourceBuilder.create().type(LoomPoolDataSource.class).url(url).build();
            own.setMaxSize(4);
            own.setMinSize(0);
            return own;
        }, definition -> ((AbstractBeanDefinition) definition).setDestroyMethodName("close"));
    }

    /** The pool behind the data source bean, which Boot's lazy connection fetch wraps in a proxy. */
    private static LoomPoolDataSource pool(org.springframework.context.ApplicationContext context, String database) {
        DataSource bean = context.getBean(DataSource.class);
        assertThat(bean instanceof org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy)
                .as("the data source bean is Boot's lazy proxy exactly in the lazy-fetch runs")
                .isEqualTo(database.endsWith(LAZY_FETCH));
        return DataSourceUnwrapper.unwrap(bean, LoomPoolDataSource.class);
    }

    @org.junit.jupiter.api.Test
    void lazyConnectionFetchLeavesAPoolTheApplicationDefinesAlone() {
        runner("h2" + OWN_POOL).withPropertyValues("spring.datasource.connection-fetch=lazy")
                .run(context -> assertThat(context).hasNotFailed().getBean("dataSource")
                        .isInstanceOf(LoomPoolDataSource.class));
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "h2" + OWN_POOL, "postgres" + OWN_POOL, "h2" + LAZY_FETCH, "postgres" + LAZY_FETCH})
    void transactionalMethodsStayOnOnePhysicalConnectionAndPinForTheirTransaction(String database) {
        runner(database).run(context -> {
            Services services = context.getBean(Services.class);
            services.createTable();
            List<Object> seen = services.transactional();
            assertThat(seen.get(0)).as("both statements on one session").isEqualTo(seen.get(1));
            // Bound when the transaction began (setAutoCommit(false)), the handle holds by its
            // transaction; behind Boot's lazy fetch it binds at its first statement, inside the
            // active transaction, and the framework's pin holds it until the transaction completes.
            assertThat(seen.get(2)).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.iterable(PinReason.class))
                    .contains(database.endsWith(LAZY_FETCH)
                            ? new PinReason[] {PinReason.FRAMEWORK_TRANSACTION, PinReason.TRANSACTION}
                            : new PinReason[] {PinReason.TRANSACTION});
            assertThat(pool(context, database).getPool().stats().inUse()).isZero();
            assertThat(services.count()).isEqualTo(1);
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "h2" + OWN_POOL, "postgres" + OWN_POOL, "h2" + LAZY_FETCH, "postgres" + LAZY_FETCH})
    void requiresNewSuspendsTheOuterTransactionAndGetsAnotherPhysicalConnection(String database) {
        runner(database).run(context -> {
            Services services = context.getBean(Services.class);
            services.createTable();
            List<Object> sessions = services.outerWithInner();
            assertThat(sessions.get(1)).as("REQUIRES_NEW's session").isNotEqualTo(sessions.get(0));
            assertThat(sessions.get(2)).as("the outer transaction resumes on its own session").isEqualTo(sessions.get(0));
            assertThat(services.count()).isEqualTo(2);
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "h2" + OWN_POOL, "postgres" + OWN_POOL, "h2" + LAZY_FETCH, "postgres" + LAZY_FETCH})
    void transactionTemplateAndJdbcClientPinToo(String database) {
        runner(database).run(context -> {
            Services services = context.getBean(Services.class);
            services.createTable();
            TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            JdbcClient client = context.getBean(JdbcClient.class);
            List<Object> seen = tx.execute(status -> {
                List<Object> s = new ArrayList<>();
                s.add(client.sql(services.sessionSql()).query(Long.class).single());
                client.sql("INSERT INTO " + services.table() + " VALUES (1)").update();
                s.add(client.sql(services.sessionSql()).query(Long.class).single());
                return s;
            });
            assertThat(seen.get(0)).isEqualTo(seen.get(1));
            assertThat(services.count()).isEqualTo(1);
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "h2" + OWN_POOL, "postgres" + OWN_POOL, "h2" + LAZY_FETCH, "postgres" + LAZY_FETCH})
    void aRolledBackTransactionLeavesNothingBehind(String database) {
        runner(database).run(context -> {
            Services services = context.getBean(Services.class);
            services.createTable();
            assertThatThrownBy(services::failing).isInstanceOf(IllegalStateException.class);
            assertThat(services.count()).isZero();
            assertThat(pool(context, database).getPool().stats().inUse()).isZero();
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class Services {

        private final JdbcTemplate jdbc;
        private final DataSource dataSource;
        private final String sessionSql;
        private final String table;
        private final Inner inner; // the proxied bean: calling it starts REQUIRES_NEW

        Services(JdbcTemplate jdbc, DataSource dataSource, String sessionSql, String table, Inner inner) {
            this.jdbc = jdbc;
            this.dataSource = dataSource;
            this.sessionSql = sessionSql;
            this.table = table;
            this.inner = inner;
        }

        // Accessors, not fields: callers hold Spring's proxy, whose own fields are empty.
        public String sessionSql() {
            return sessionSql;
        }

        public String table() {
            return table;
        }

        public void createTable() {
            jdbc.execute("CREATE TABLE " + table + " (id INT)");
        }

        public int count() {
            return jdbc.queryForObject("SELECT COUNT(*) FROM " + table, Integer.class);
        }

        @Transactional
        public List<Object> transactional() {
            List<Object> seen = new ArrayList<>();
            seen.add(jdbc.queryForObject(sessionSql, Object.class));
            jdbc.update("INSERT INTO " + table + " VALUES (1)");
            seen.add(jdbc.queryForObject(sessionSql, Object.class));
            Connection c = DataSourceUtils.getConnection(dataSource);
            try {
                seen.add(c.unwrap(LoomConnection.class).pinReasons());
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            return seen;
        }

        @Transactional
        public List<Object> outerWithInner() {
            List<Object> sessions = new ArrayList<>();
            jdbc.update("INSERT INTO " + table + " VALUES (1)");
            sessions.add(jdbc.queryForObject(sessionSql, Object.class));
            sessions.add(inner.requiresNew(jdbc, sessionSql, table));
            sessions.add(jdbc.queryForObject(sessionSql, Object.class));
            return sessions;
        }

        @Transactional
        public void failing() {
            jdbc.update("INSERT INTO " + table + " VALUES (1)");
            throw new IllegalStateException("roll back");
        }
    }

    static class Inner {

        @Transactional(propagation = Propagation.REQUIRES_NEW)
        public Object requiresNew(JdbcTemplate jdbc, String sessionSql, String table) {
            jdbc.update("INSERT INTO " + table + " VALUES (2)");
            return jdbc.queryForObject(sessionSql, Object.class);
        }
    }
}
