package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * The unknown-key check against the sources loompool shares with other tools, the environment and
 * the JVM's system properties: there only a near miss fails, so another tool's variable must start
 * and a misspelling of a key must not.
 */
class UnknownKeysSharedSourcesTest {

    /** The check alone, against environment variables: null when it passes, else its message. */
    private static String check(Map<String, Object> variables) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new SystemEnvironmentPropertySource("test-systemEnvironment", variables));
        try {
            UnknownKeys.check(environment);
            return null;
        } catch (LoomPoolStartupException e) {
            return e.getMessage();
        }
    }

    @Test
    void otherToolsVariablesUnderLoompoolDoNotFailTheStart() {
        // Kubernetes service links (service loompool, named ports, services loompool-metrics, loompool-pgbouncer),
        // Docker links, an installer's and a CI's variables.
        List<String> failing = new ArrayList<>();
        for (String variable : List.of("LOOMPOOL_PORT", "LOOMPOOL_PORT_5432_TCP", "LOOMPOOL_PORT_5432_TCP_PORT",
                "LOOMPOOL_PORT_5432_TCP_ADDR", "LOOMPOOL_PORT_5432_TCP_PROTO", "LOOMPOOL_SERVICE_HOST",
                "LOOMPOOL_SERVICE_PORT", "LOOMPOOL_SERVICE_PORT_POSTGRES", "LOOMPOOL_SERVICE_PORT_HTTP",
                "LOOMPOOL_SERVICE_PORT_METRICS", "LOOMPOOL_PORT_8080_TCP_PORT", "LOOMPOOL_METRICS_SERVICE_HOST",
                "LOOMPOOL_METRICS_PORT", "LOOMPOOL_PGBOUNCER_SERVICE_HOST", "LOOMPOOL_PGBOUNCER_PORT",
                "LOOMPOOL_NAME", "LOOMPOOL_ENV_POSTGRES_PASSWORD", "LOOMPOOL_HOME", "LOOMPOOL_VERSION",
                "LOOMPOOL_IMAGE", "LOOMPOOL_TAG", "LOOMPOOL_DEBUG", "LOOMPOOL_OPTS", "LOOMPOOL_JAVA_OPTS",
                "LOOMPOOL_TEST_POSTGRES_URL", "LOOMPOOL_TEST_MYSQL_URL", "LOOMPOOL_BENCH_THREADS",
                "LOOMPOOL_DB_HOST", "LOOMPOOL_DB_NAME", "LOOMPOOL_DB_USER", "LOOMPOOL_HEALTHCHECK_PORT")) {
            if (check(Map.of(variable, "x")) != null) {
                failing.add(variable);
            }
        }
        // This build's own -D flags, which reach the tests' JVMs.
        for (String property : List.of("loompool.test.mariadb-scheme", "loompool.test.mariadb-options",
                "loompool.matrix.driver", "loompool.matrix.database", "loompool.matrix.transaction-state",
                "loompool.fuzz.targets", "loompool.fuzz.pool.targets", "loompool.fuzz.pool.known",
                "loompool.fuzz.pool.tries", "loompool.fuzz.shrunk", "loompool.bench.app")) {
            StandardEnvironment environment = new StandardEnvironment();
            environment.getPropertySources().replace(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME,
                    new MapPropertySource(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME, Map.of(property, "x")));
            try {
                UnknownKeys.check(environment);
            } catch (LoomPoolStartupException e) {
                failing.add(property);
            }
        }
        assertThat(failing).isEmpty();
    }

    /** A Kubernetes service named loompool-replica, or a team's own variables: near the replicas list only by prefix. */
    @Test
    void aServiceNamedLoompoolReplicaDoesNotFailTheStart() {
        List<String> failing = new ArrayList<>();
        for (String variable : List.of("LOOMPOOL_REPLICA_SERVICE_HOST", "LOOMPOOL_REPLICA_SERVICE_PORT",
                "LOOMPOOL_REPLICA_PORT_5432_TCP_ADDR", "LOOMPOOL_REPLICAS_SERVICE_HOST", "LOOMPOOL_DB_SCHEMA")) {
            if (check(Map.of(variable, "x")) != null) {
                failing.add(variable);
            }
        }
        assertThat(failing).isEmpty();
    }

    /** Other pools' names (Tomcat JDBC, DBCP2, c3p0) written as environment variables. */
    @Test
    void anotherPoolsNameAsAnEnvironmentVariableFails() {
        List<String> silent = new ArrayList<>();
        for (String variable : List.of("LOOMPOOL_MIN_IDLE", "LOOMPOOL_MAX_ACTIVE", "LOOMPOOL_MAX_TOTAL",
                "LOOMPOOL_MAX_IDLE", "LOOMPOOL_MAX_WAIT", "LOOMPOOL_POOL_SIZE", "LOOMPOOL_MAX_CONNECTIONS",
                "LOOMPOOL_HIKARI_MAXIMUM_POOL_SIZE")) {
            if (check(Map.of(variable, "20")) == null) {
                silent.add(variable);
            }
        }
        assertThat(silent).isEmpty();
    }

    /** A key misspelled by a letter next to the list's name names the key, not the list. */
    @Test
    void aMisspellingNextToTheListNamesTheKeyMeant() {
        assertThat(check(Map.of("LOOMPOOL_REPLICAS_MAX_SIZE", "3"))).contains("did you mean loompool.replica-max-size?");
    }
}
