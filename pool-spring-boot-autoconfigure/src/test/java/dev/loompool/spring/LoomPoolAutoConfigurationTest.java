package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.loompool.jdbc.BindObserver;
import dev.loompool.jdbc.Credentials;
import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.ReleaseMode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.boot.jdbc.metadata.DataSourcePoolMetadataProvider;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class LoomPoolAutoConfigurationTest {

    static String h2() {
        return "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class,
                    LoomPoolMetricsAutoConfiguration.class, LoomPoolHealthAutoConfiguration.class,
                    LoomPoolEndpointAutoConfiguration.class, DataSourceAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + h2());

    @Test
    void theDataSourceIsLoomPoolNamedDataSourceEvenWithHikariOnTheClassPath() {
        assertThat(org.springframework.util.ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource", null))
                .as("precondition: Hikari is on the class path, as with spring-boot-starter-jdbc").isTrue();
        runner.run(context -> {
            assertThat(context).hasSingleBean(DataSource.class);
            assertThat(context.getBean("dataSource")).isInstanceOf(LoomPoolDataSource.class);
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            assertThat(ds.isRunning()).as("started, and pre-warmed, at refresh").isTrue();
            assertThat(ds.getPool().stats().idle()).isEqualTo(2);
        });
    }

    @Test
    void itBacksOffWhenTheApplicationDefinesADataSource() {
        runner.withUserConfiguration(OwnDataSource.class).run(context -> {
            assertThat(context).hasSingleBean(DataSource.class).doesNotHaveBean(LoomPoolDataSource.class);
            assertThat(context.getBean(DataSource.class)).isInstanceOf(HikariDataSource.class);
        });
    }

    @Test
    void withoutAUrlItUsesTheEmbeddedDatabase() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class, DataSourceAutoConfiguration.class))
                .run(context -> assertThat(context.getBean(LoomPoolDataSource.class).getJdbcUrl()).startsWith("jdbc:h2:mem:"));
    }

    @Test
    void everyLoompoolPropertyIsBound() {
        runner.withPropertyValues("loompool.min-size=1", "loompool.max-size=7", "loompool.acquire-timeout=5s",
                "loompool.healthcheck-interval=1m", "loompool.idle-timeout=2m", "loompool.max-lifetime=20m",
                "loompool.validation-timeout=3s", "loompool.leak-detection-threshold=10s", "loompool.release-mode=close",
                "loompool.reclaim-on-owner-exit=true",
                "loompool.pool-name=orders", "loompool.connection-init-sql=SELECT 1", "loompool.auto-commit=true",
                "loompool.transaction-isolation=READ_COMMITTED", "loompool.read-only=false",
                "loompool.data-source-properties.MODE=PostgreSQL",
                "loompool.circuit-breaker.failure-threshold=9", "loompool.circuit-breaker.open-duration=7s")
                .run(context -> {
                    LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
                    assertThat(ds.getMinSize()).isEqualTo(1);
                    assertThat(ds.getMaxSize()).isEqualTo(7);
                    assertThat(ds.getAcquireTimeout()).isEqualTo(Duration.ofSeconds(5));
                    assertThat(ds.getHealthcheckInterval()).isEqualTo(Duration.ofMinutes(1));
                    assertThat(ds.getIdleTimeout()).isEqualTo(Duration.ofMinutes(2));
                    assertThat(ds.getMaxLifetime()).isEqualTo(Duration.ofMinutes(20));
                    assertThat(ds.getValidationTimeout()).isEqualTo(Duration.ofSeconds(3));
                    assertThat(ds.getLeakDetectionThreshold()).isEqualTo(Duration.ofSeconds(10));
                    assertThat(ds.isReclaimOnOwnerExit()).isTrue();
                    assertThat(ds.getReleaseMode()).isEqualTo(ReleaseMode.CLOSE);
                    assertThat(ds.getPoolName()).isEqualTo("orders");
                    assertThat(ds.getConnectionInitSql()).isEqualTo("SELECT 1");
                    assertThat(ds.getAutoCommit()).isTrue();
                    assertThat(ds.getTransactionIsolation()).isEqualTo("READ_COMMITTED");
                    assertThat(ds.getReadOnly()).isFalse();
                    assertThat(ds.getDataSourceProperties()).containsEntry("MODE", "PostgreSQL");
                    assertThat(ds.getCircuitBreakerFailureThreshold()).isEqualTo(9);
                    assertThat(ds.getCircuitBreakerOpenDuration()).isEqualTo(Duration.ofSeconds(7));
                });
    }

    @Test
    void connectionDetailsWinOverSpringDatasourceProperties() {
        String url = h2();
        runner.withBean(JdbcConnectionDetails.class, () -> new JdbcConnectionDetails() {
            @Override
            public String getUsername() {
                return "sa";
            }

            @Override
            public String getPassword() {
                return "";
            }

            @Override
            public String getJdbcUrl() {
                return url;
            }
        }).run(context -> assertThat(context.getBean(LoomPoolDataSource.class).getJdbcUrl()).isEqualTo(url));
    }

    @Test
    void aCredentialsSupplierBeanIsAskedAtEveryConnectAndWinsOverTheConfiguredPassword() {
        // The H2 database is made by the first connect: its user is whoever connects first.
        AtomicInteger asked = new AtomicInteger();
        Supplier<Credentials> rotating = () -> {
            asked.incrementAndGet();
            return new Credentials("rotated", "token");
        };
        runner.withBean("loomPoolCredentials", Supplier.class, () -> rotating)
                .withPropertyValues("spring.datasource.username=sa", "spring.datasource.password=wrong-for-h2")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
                    assertThat(asked).as("once per pre-warmed connection").hasValue(2);
                    ds.evictIdle();
                    try (Connection c = ds.getConnection(); Statement s = c.createStatement();
                            ResultSet rs = s.executeQuery("SELECT CURRENT_USER")) {
                        rs.next();
                        assertThat(rs.getString(1)).isEqualToIgnoringCase("rotated");
                    }
                    assertThat(asked.get()).as("asked again for the connection after the eviction").isGreaterThan(2);
                });
    }

    @Test
    void thePoolClosesWithTheContext() {
        LoomPoolDataSource[] seen = new LoomPoolDataSource[1];
        runner.run(context -> seen[0] = context.getBean(LoomPoolDataSource.class));
        assertThat(seen[0].isClosed()).isTrue();
    }

    /** loompool.server-pooler binds as Boot binds enums (pgbouncer-transaction), and the pool checks it at start. */
    @Test
    void theServerPoolerBindsAndRefusesADatabaseItDoesNotFit() {
        runner.withPropertyValues("loompool.server-pooler=pgbouncer-transaction").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("PGBOUNCER_TRANSACTION needs a "
                    + "PostgreSQL jdbcUrl");
        });
        runner.withPropertyValues("loompool.server-pooler=session").run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new LoomPoolFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("loompool.server-pooler").contains("NONE, PGBOUNCER_TRANSACTION");
        });
    }

    /** What the user sees is the first analysis of Boot's failure analyzers (spring.factories, in their order). */
    @Test
    void theReportOfARefusedValueIsLoompoolsNotBootsBindReport() {
        runner.withPropertyValues("loompool.max-size=0").run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis first = null;
            for (org.springframework.boot.diagnostics.FailureAnalyzer analyzer : org.springframework.core.io.support
                    .SpringFactoriesLoader.forDefaultResourceLocation().load(
                            org.springframework.boot.diagnostics.FailureAnalyzer.class,
                            org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver.none(),
                            (type, name, error) -> { })) {
                first = analyzer.analyze(context.getStartupFailure());
                if (first != null) {
                    break;
                }
            }
            assertThat(first).isNotNull();
            assertThat(first.getDescription()).startsWith("Invalid loompool configuration: loompool.max-size");
        });
    }

    @Test
    void anInvalidSettingFailsStartupNamingTheKey() {
        runner.withPropertyValues("loompool.max-size=0").run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new LoomPoolFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("loompool.max-size").contains("maxSize must be >= 1, was 0");
            assertThat(analysis.getAction()).contains("loompool.max-size");
        });
        runner.withPropertyValues("loompool.transaction-isolation=SNAPSHOT").run(context -> {
            FailureAnalysis analysis = new LoomPoolFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("loompool.transaction-isolation")
                    .contains("READ_COMMITTED");
        });
        runner.withPropertyValues("loompool.circuit-breaker.open-duration=-1s").run(context -> {
            FailureAnalysis analysis = new LoomPoolFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("loompool.circuit-breaker.open-duration")
                    .contains("must be a duration of zero or more");
        });
        runner.withPropertyValues("loompool.min-size=5", "loompool.max-size=4").run(context -> {
            FailureAnalysis analysis = new LoomPoolFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("minSize must be <= maxSize");
            assertThat(analysis.getAction()).contains("loompool.min-size").contains("loompool.max-size");
        });
    }

    @Test
    void aSettingUnderLoompoolThatBelongsElsewhereFailsNamingWhereItGoes() {
        runner.withPropertyValues("loompool.password=hunter2").run(context -> {
            FailureAnalysis analysis = new LoomPoolFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("loompool.password is not a loompool key")
                    .contains("spring.datasource.password").doesNotContain("hunter2");
        });
        runner.withPropertyValues("loompool.circuit-breaker-failure-threshold=3").run(context -> {
            FailureAnalysis analysis = new LoomPoolFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("loompool.circuit-breaker.failure-threshold");
        });
    }

    @Test
    void theNestedCircuitBreakerKeysBindFromEnvironmentVariablesInBothSpellings() {
        for (String variable : new String[] {"LOOMPOOL_CIRCUIT_BREAKER_FAILURE_THRESHOLD", "LOOMPOOL_CIRCUITBREAKER_FAILURETHRESHOLD"}) {
            runner.withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                    new org.springframework.core.env.SystemEnvironmentPropertySource("test-systemEnvironment",
                            java.util.Map.of(variable, "3"))))
                    .run(context -> {
                        assertThat(context).as(variable).hasNotFailed();
                        assertThat(context.getBean(LoomPoolDataSource.class).getCircuitBreakerFailureThreshold())
                                .as(variable).isEqualTo(3);
                    });
        }
    }

    @Test
    void aKeyUnderAGetterOnlyPropertyIsNeverBoundIntoIt() {
        // "connection", "pool": the binder would call getConnection() or getPool() to bind into them.
        // Not keys, so they stop the startup (UnknownKeysTest); with that switched off, they are still never bound.
        runner.withPropertyValues("loompool.connection.schema=x", "loompool.pool.name=y", "loompool.max-size=3",
                "loompool.fail-on-unknown-keys=false").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(LoomPoolDataSource.class).getMaxSize()).isEqualTo(3);
                });
    }

    @Test
    void aWrongReleaseModeFailsBindingNamingTheKey() {
        runner.withPropertyValues("loompool.release-mode=SOMETIMES").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("loompool.release-mode");
            FailureAnalysis analysis = new LoomPoolFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("loompool.release-mode").contains("allowed: STATEMENT, CLOSE");
        });
    }

    @Test
    void anUnreachableDatabaseFailsStartupNamingTheUrlButNotThePassword() {
        runner.withPropertyValues("spring.datasource.url=jdbc:postgresql://127.0.0.1:1/test?password=hunter2",
                "spring.datasource.password=hunter2").run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = new LoomPoolFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("jdbc:postgresql://127.0.0.1:1/test?password=****")
                            .doesNotContain("hunter2");
                    assertThat(analysis.getAction()).contains("loompool.min-size=0");
                });
    }

    @Test
    void aPasswordInAPostgresUrlAuthorityIsRefusedAndMaskedInTheWholeStartupFailure() {
        // pgjdbc reads no user:password@ and would log the whole URL: loompool refuses it first
        runner.withPropertyValues("spring.datasource.url=jdbc:postgresql://user:hunter2@127.0.0.1:5432/test")
                .run(context -> {
                    assertThat(context).hasFailed();
                    StringWriter trace = new StringWriter();
                    context.getStartupFailure().printStackTrace(new PrintWriter(trace));
                    assertThat(trace.toString())
                            .contains("jdbcUrl jdbc:postgresql://user:****@127.0.0.1:5432/test has a user and password")
                            .doesNotContain("hunter2");
                    FailureAnalysis analysis = new LoomPoolFailureAnalyzer().analyze(context.getStartupFailure());
                    if (analysis != null) {
                        assertThat(analysis.getDescription() + analysis.getAction()).doesNotContain("hunter2");
                    }
                });
    }

    @Test
    void eachOptionalPieceBacksOffWithoutItsLibrary() {
        runner.withClassLoader(new FilteredClassLoader("io.micrometer.core")).run(context -> {
            assertThat(context).hasSingleBean(LoomPoolDataSource.class).doesNotHaveBean(LoomPoolMeters.class);
        });
        runner.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate")).run(context -> {
            assertThat(context).hasSingleBean(LoomPoolDataSource.class).doesNotHaveBean(LoomPoolEndpoint.class);
        });
        runner.withClassLoader(new FilteredClassLoader("org.springframework.boot.health")).run(context -> {
            assertThat(context).hasSingleBean(LoomPoolDataSource.class).doesNotHaveBean(LoomPoolHealthIndicator.class);
        });
        runner.withClassLoader(new FilteredClassLoader("org.springframework.transaction")).run(context -> {
            assertThat(context).hasSingleBean(LoomPoolDataSource.class).doesNotHaveBean(BindObserver.class);
        });
        runner.withPropertyValues("management.endpoints.web.exposure.include=loompool")
                .run(context -> assertThat(context).hasSingleBean(LoomPoolMeters.class)
                        .hasSingleBean(LoomPoolEndpoint.class).hasSingleBean(LoomPoolHealthIndicator.class)
                        .hasSingleBean(BindObserver.class));
        runner.run(context -> assertThat(context).as("not exposed, not created").doesNotHaveBean(LoomPoolEndpoint.class));
    }

    @Test
    void bootSeesThePoolMetadata() {
        runner.run(context -> {
            DataSource ds = context.getBean(DataSource.class);
            var metadata = context.getBeansOfType(DataSourcePoolMetadataProvider.class).values().stream()
                    .map(p -> p.getDataSourcePoolMetadata(ds)).filter(m -> m != null).findFirst().orElseThrow();
            assertThat(metadata.getMax()).isEqualTo(10);
            assertThat(metadata.getIdle()).isEqualTo(2);
            assertThat(metadata.getActive()).isZero();
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnDataSource {

        @Bean
        DataSource dataSource() {
            HikariDataSource ds = new HikariDataSource();
            ds.setJdbcUrl(h2());
            return ds;
        }
    }
}
