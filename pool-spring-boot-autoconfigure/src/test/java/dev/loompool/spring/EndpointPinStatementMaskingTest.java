package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The masked pin statement through {@code GET /actuator/loompool/{name}} and the health
 * detail, on H2 (the OTHER dialect, a real server): each test asserts the SAFE behaviour, that the
 * secret shows in neither; a failing test marks a leak. Each first checks that H2 read the secret
 * as a value.
 */
class EndpointPinStatementMaskingTest {

    private static final String SECRET = "S3cretTok9";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class,
                    LoomPoolHealthAutoConfiguration.class, LoomPoolEndpointAutoConfiguration.class,
                    DataSourceAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + LoomPoolAutoConfigurationTest.h2(),
                    "loompool.pool-name=atkmask", "loompool.max-size=2",
                    "management.endpoints.web.exposure.include=loompool");

    /** Runs {@code sql} on a handle, checks H2's value of {@code @token}, returns the endpoint's boundHandles. */
    private void assertEndpointHidesTheSecret(String sql, String expectedToken) {
        runner.run(context -> {
            LoomPoolEndpoint endpoint = context.getBean(LoomPoolEndpoint.class);
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            try (Connection c = ds.getConnection()) {
                try (Statement st = c.createStatement()) {
                    st.execute(sql);
                }
                String handles = String.valueOf(endpoint.pool("atkmask").get("boundHandles"));
                System.out.println("[atkmask] endpoint boundHandles for " + sql.replace("\n", "\\n") + ": " + handles);
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT @token")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).as("H2 read the secret as the value").isEqualTo(expectedToken);
                }
                assertThat(handles).as("the endpoint shows the pin statement").contains("pinStatement");
                assertThat(handles).as("the endpoint's boundHandles").doesNotContain(SECRET);
            }
        });
    }

    @Test
    void aQuotedSetIsMasked() {
        assertEndpointHidesTheSecret("SET @token = 'S3cretTok9'", SECRET);
    }

    @Test
    void anExecutableLookingCommentThatH2ReadsAsACommentHidesNoQuote() {
        assertEndpointHidesTheSecret("SET @token = /*! '*/ 'S3cretTok9' /*! '*/", SECRET);
    }

    @Test
    void aDoubleSlashCommentThatH2ReadsAsACommentHidesNoQuote() {
        assertEndpointHidesTheSecret("SET @token = CONCAT('a' // it's\n, 'S3cretTok9')", "a" + SECRET);
    }

    /** H2's messages quote the whole failing statement: the init SQL's literal reaches lastConnectError. */
    @Test
    void theHealthDetailOfAFailingInitSqlShowsNoLiteral() {
        runner.withPropertyValues("loompool.connection-init-sql=SELECT CAST('S3cretTok9' AS INT)",
                "loompool.initialization-fail-timeout=-1ms", "loompool.min-size=1").run(context -> {
                    LoomPoolHealthIndicator indicator = context.getBean(LoomPoolHealthIndicator.class);
                    Health health = indicator.health();
                    System.out.println("[atkmask] health details: " + health.getDetails());
                    assertThat(health.getDetails()).containsKey("lastConnectError");
                    assertThat(String.valueOf(health.getDetails())).as("the health details").doesNotContain(SECRET);
                });
    }
}
