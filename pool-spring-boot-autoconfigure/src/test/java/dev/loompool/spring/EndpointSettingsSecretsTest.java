package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.Credentials;
import dev.loompool.jdbc.LoomPoolDataSource;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Attack on the settings {@code GET /actuator/loompool/{name}} shows ({@link EndpointSettings}): an
 * operator pastes this JSON into tickets and chat, so no secret may be in it, however it was
 * configured. Each test asserts the SAFE behaviour; a disabled one marks a leak.
 */
class EndpointSettingsSecretsTest {

    private static final String SECRET = "Zq7SecretVal";

    private static String shown(LoomPoolDataSource ds) {
        Map<String, Object> settings = EndpointSettings.of(ds);
        return String.valueOf(settings);
    }

    private static LoomPoolDataSource pool(String url) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(url);
        ds.setPoolName("wt40b-settings");
        return ds;
    }

    /** The password-like forms every pool masks: in the URL, however the driver spells it. */
    @ParameterizedTest
    @ValueSource(strings = {
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&password=" + SECRET,
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&sslpassword=" + SECRET,
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&PASSWORD=" + SECRET + "&ssl=false",
            "jdbc:mysql://root:" + SECRET + "@127.0.0.1:3306/test",
            "jdbc:mariadb://127.0.0.1:3306/test?user=root&trustStorePassword=" + SECRET,
            "jdbc:mariadb://127.0.0.1:3306/test?user=root&keyStorePassword=" + SECRET,
            "jdbc:mysql://address=(host=127.0.0.1)(port=3306)(user=root)(password=" + SECRET + ")/test",
            "jdbc:sqlserver://127.0.0.1:1433;user=sa;password=" + SECRET + ";encrypt=false",
            "jdbc:oracle:thin:scott/" + SECRET + "@127.0.0.1:1521/xe",
            "jdbc:h2:mem:wt40b;USER=sa;PASSWORD=" + SECRET,
    })
    void aPasswordInTheUrlIsNotShown(String url) {
        LoomPoolDataSource ds = pool(url);
        assertThat(shown(ds)).as(url).doesNotContain(SECRET);
        assertThat(EndpointSettings.of(ds).get("jdbcUrl")).asString().contains("****");
    }

    @Test
    void aReplicasPasswordIsNotShown() {
        LoomPoolDataSource ds = pool("jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        ds.setReplicas(List.of("jdbc:postgresql://127.0.0.1:5433/test?user=postgres&password=" + SECRET,
                "jdbc:postgresql://127.0.0.1:5434/test?user=postgres&sslpassword=" + SECRET + "x"));
        assertThat(shown(ds)).doesNotContain(SECRET);
    }

    @Test
    void driverPropertiesCredentialsAndSupplierAreNotShown() {
        LoomPoolDataSource ds = pool("jdbc:postgresql://127.0.0.1:5432/test");
        Properties p = new Properties();
        p.setProperty("sslpassword", SECRET + "1");
        p.setProperty("sslkey", "/secrets/" + SECRET + "2");
        p.setProperty("options", "-c app.token=" + SECRET + "3");
        ds.setDataSourceProperties(p);
        ds.setUsername("postgres");
        ds.setPassword(SECRET + "4");
        ds.setCredentialsSupplier(new java.util.function.Supplier<Credentials>() {
            @Override
            public Credentials get() {
                return new Credentials("postgres", SECRET + "5");
            }

            @Override
            public String toString() {
                return "supplier with " + SECRET + "6";
            }
        });
        String shown = shown(ds);
        assertThat(shown).doesNotContain(SECRET);
        assertThat(EndpointSettings.of(ds)).doesNotContainKeys("password", "credentialsSupplier");
        assertThat(EndpointSettings.of(ds).get("dataSourceProperties")).asString().contains("sslpassword", "options");
    }

    /**
     * Access tokens and key-store secrets are credentials too, under names with no "password" in
     * them: SQL Server's {@code accessToken} and {@code keyStoreSecret}, Snowflake's {@code token}.
     * HikariCP masks only "password" keys in the URL it logs; loompool's README promises the URL
     * "masked", and its endpoint lists what it shows to whoever can read the actuator.
     */
    @ParameterizedTest
    @ValueSource(strings = {
            "jdbc:sqlserver://127.0.0.1:1433;accessToken=" + SECRET + ";encrypt=true",
            "jdbc:sqlserver://127.0.0.1:1433;user=sa;keyStoreAuthentication=JavaKeyStorePassword;keyStoreSecret=" + SECRET,
            "jdbc:snowflake://acct.snowflakecomputing.com/?authenticator=oauth&token=" + SECRET,
    })
    void aTokenOrKeyStoreSecretInTheUrlIsNotShown(String url) {
        assertThat(shown(pool(url))).as(url).doesNotContain(SECRET);
    }

    /**
     * connectionInitSql often carries a secret: {@code SET app.api_key = '…'} for row-level security,
     * {@code SET ROLE … } with a key, pgcrypto's key. loompool hides SQL literals everywhere else it
     * shows SQL (pinStatement masked, the health detail's quotes hidden); the settings show it raw.
     */
    @Test
    void aLiteralInTheConnectionInitSqlIsNotShown() {
        LoomPoolDataSource ds = pool("jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        ds.setConnectionInitSql("SET app.api_key = '" + SECRET + "'");
        Map<String, Object> settings = EndpointSettings.of(ds);
        assertThat(settings).containsKey("connectionInitSql");
        assertThat(String.valueOf(settings)).doesNotContain(SECRET);
    }
}
