package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.core.io.support.SpringFactoriesLoader;

/**
 * A HikariCP application's start and failures, unchanged, under HikariCP 7.1 and under loompool on
 * the real PostgreSQL and MariaDB: an init SQL the database refuses, the MySQL prepared-statement
 * cache properties every HikariCP guide copies, and an application's own data sources built the
 * way Boot's documentation shows, once the starter has taken HikariCP off the class path.
 */
class HikariMigrationStartAndFailTest {

    private static final String PG = TestDatabase.POSTGRES.url();
    private static final String MARIADB = TestDatabase.MARIADB.url();

    private static ApplicationContextRunner runner(String url) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                        LoomPoolAutoConfiguration.class, DataSourceAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + url);
    }

    /** Per pool: whether the context started, then what the first statement did. */
    private static List<String> run(ApplicationContextRunner configured, boolean hikari) {
        List<String> seen = new ArrayList<>();
        (hikari ? configured.withPropertyValues("spring.datasource.type=" + HikariDataSource.class.getName())
                : configured).run(context -> {
                    if (context.getStartupFailure() != null) {
                        seen.add("start failed");
                        return;
                    }
                    seen.add("started");
                    DataSource ds = context.getBean(DataSource.class);
                    assertThat(ds).isInstanceOf(hikari ? HikariDataSource.class : LoomPoolDataSource.class);
                    try (Connection c = ds.getConnection(); Statement s = c.createStatement();
                            ResultSet rs = s.executeQuery("SELECT 1")) {
                        rs.next();
                        seen.add("statement ran");
                    } catch (SQLException | RuntimeException e) { // HikariCP: IllegalArgumentException
                        seen.add("statement failed");
                    }
                });
        return seen;
    }

    @Test
    void anInitSqlTheDatabaseRefusesStartsTheAppAndFailsItsStatementsAsUnderHikari() {
        ApplicationContextRunner configured = runner(PG).withPropertyValues(
                "spring.datasource.hikari.connection-init-sql=SET wt40a_no_such_setting = 1",
                "spring.datasource.hikari.connection-timeout=2000");
        assertThat(run(configured, true)).as("HikariCP").containsExactly("started", "statement failed");
        assertThat(run(configured, false)).as("loompool").containsExactly("started", "statement failed");
    }

    @Test
    void theMysqlStatementCachePropertiesOfHikarisGuidesRunOnMariadbAsUnderHikari() {
        ApplicationContextRunner configured = runner(MARIADB).withPropertyValues(
                "spring.datasource.hikari.data-source-properties.cachePrepStmts=true",
                "spring.datasource.hikari.data-source-properties.prepStmtCacheSize=250",
                "spring.datasource.hikari.data-source-properties.prepStmtCacheSqlLimit=2048",
                "spring.datasource.hikari.data-source-properties.useServerPrepStmts=true",
                "spring.datasource.hikari.maximum-pool-size=2");
        assertThat(run(configured, true)).as("HikariCP").containsExactly("started", "statement ran");
        assertThat(run(configured, false)).as("loompool").containsExactly("started", "statement ran");
    }

    @Test
    void aMistypedIsolationStopsLoompoolsStartWhereHikariFailsEveryStatement() {
        ApplicationContextRunner configured = runner(PG).withPropertyValues(
                "spring.datasource.hikari.transaction-isolation=TRANSACTION_READ_COMITTED");
        assertThat(run(configured, true)).as("HikariCP").containsExactly("started", "statement failed");
        // loompool finds it at the start instead, naming the key: never a pool on another isolation.
        assertThat(run(configured, false)).as("loompool").containsExactly("start failed");
    }

    /**
     * Boot's documented way to configure two data sources, without naming a pool type, each taking
     * HikariCP's keys from its own {@code .hikari} group.
     */
    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties
    static class TwoDataSources {

        @Bean
        @Primary
        @ConfigurationProperties("app.datasource.orders")
        DataSourceProperties ordersDataSourceProperties() {
            return new DataSourceProperties();
        }

        @Bean
        @Primary
        @ConfigurationProperties("app.datasource.orders.hikari")
        DataSource ordersDataSource(@Qualifier("ordersDataSourceProperties") DataSourceProperties properties) {
            return properties.initializeDataSourceBuilder().build();
        }

        @Bean
        @ConfigurationProperties("app.datasource.billing")
        DataSourceProperties billingDataSourceProperties() {
            return new DataSourceProperties();
        }

        @Bean
        @ConfigurationProperties("app.datasource.billing.hikari")
        DataSource billingDataSource(@Qualifier("billingDataSourceProperties") DataSourceProperties properties) {
            return properties.initializeDataSourceBuilder().build();
        }
    }

    private static final String[] TWO_DATA_SOURCES = {"app.datasource.orders.url=" + PG,
        "app.datasource.orders.hikari.maximum-pool-size=3", "app.datasource.orders.hikari.pool-name=orders",
        "app.datasource.billing.url=" + MARIADB, "app.datasource.billing.hikari.maximum-pool-size=2",
        "app.datasource.billing.hikari.auto-commit=false"};

    @Test
    void twoDataSourcesOfTheApplicationAreHikariPoolsWithTheirKeysUnderHikari() {
        runner(PG).withUserConfiguration(TwoDataSources.class).withPropertyValues(TWO_DATA_SOURCES).run(context -> {
            assertThat(context).hasNotFailed();
            HikariDataSource orders = (HikariDataSource) context.getBean("ordersDataSource");
            HikariDataSource billing = (HikariDataSource) context.getBean("billingDataSource");
            assertThat(orders.getMaximumPoolSize()).isEqualTo(3);
            assertThat(billing.isAutoCommit()).isFalse();
            assertThat(backendsOfTwoBorrows(orders)).as("pooled: one session reused").isEqualTo(1);
        });
    }

    @Test
    void twoDataSourcesOfTheApplicationOnceHikariIsGoneFailNamingTheWayOut() {
        runner(PG).withClassLoader(new FilteredClassLoader("com.zaxxer.hikari")).withUserConfiguration(TwoDataSources.class)
                .withPropertyValues(TWO_DATA_SOURCES).run(context -> {
                    // Boot's DataSourceBuilder picks only the pools it knows: it cannot pick loompool on its own.
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = analyze(context.getStartupFailure());
                    assertThat(analysis).as("a failure analysis").isNotNull();
                    assertThat(analysis.getDescription()).contains("HikariCP");
                    assertThat(analysis.getAction()).contains("type(LoomPoolDataSource.class)");
                });
    }

    /** What Boot's failure analyzers (spring.factories) say about a startup failure. */
    private static FailureAnalysis analyze(Throwable failure) {
        for (FailureAnalyzer analyzer : SpringFactoriesLoader.forDefaultResourceLocation()
                .load(FailureAnalyzer.class, SpringFactoriesLoader.ArgumentResolver.none(), (type, name, error) -> { })) {
            FailureAnalysis analysis = analyzer.analyze(failure);
            if (analysis != null) {
                return analysis;
            }
        }
        return null;
    }

    /** The same bean, made a loompool by naming its type, the one line the way out asks to change. */
    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties
    static class OwnLoompoolWithHikarisKeys {

        @Bean(destroyMethod = "close")
        @ConfigurationProperties("app.datasource.orders.hikari")
        LoomPoolDataSource ordersDataSource() {
            return org.springframework.boot.jdbc.DataSourceBuilder.create().type(LoomPoolDataSource.class).build();
        }
    }

    @Test
    void anOwnLoompoolBoundFromItsHikariGroupRunsWithThoseSettingsOrSaysWhy() {
        runner(PG).withUserConfiguration(OwnLoompoolWithHikarisKeys.class).withPropertyValues(
                "app.datasource.orders.hikari.jdbc-url=" + PG, "app.datasource.orders.hikari.maximum-pool-size=3",
                "app.datasource.orders.hikari.minimum-idle=1", "app.datasource.orders.hikari.connection-timeout=2000",
                "app.datasource.orders.hikari.auto-commit=false").run(context -> {
                    if (context.getStartupFailure() == null) {
                        LoomPoolDataSource orders = context.getBean(LoomPoolDataSource.class);
                        assertThat(orders.getAutoCommit()).as("a name both share binds").isFalse();
                        assertThat(orders.getMaxSize()).as("maximum-pool-size").isEqualTo(3);
                        assertThat(orders.getMinSize()).as("minimum-idle").isEqualTo(1);
                        assertThat(orders.getAcquireTimeout()).as("connection-timeout")
                                .isEqualTo(java.time.Duration.ofMillis(2000));
                    } else {
                        assertThat(context.getStartupFailure()).hasStackTraceContaining("maximum-pool-size (write "
                                + "app.datasource.orders.hikari.max-size)").hasStackTraceContaining("minimum-idle")
                                .hasStackTraceContaining("connection-timeout");
                    }
                });
    }

    /** How many database sessions two borrows one after the other used (a pool of one: 1). */
    private static int backendsOfTwoBorrows(DataSource ds) throws SQLException {
        List<String> pids = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            try (Connection c = ds.getConnection(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
                rs.next();
                pids.add(rs.getString(1));
            }
        }
        return (int) pids.stream().distinct().count();
    }
}
