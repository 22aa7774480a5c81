package dev.loompool.sample;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The sample with the {@code postgres} profile against a real PostgreSQL: the local one, or
 * {@code LOOMPOOL_TEST_POSTGRES_URL}. Skipped without one, except under CI=true, where it fails.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ActiveProfiles("postgres")
class PostgresEndToEndTest extends EndToEndScenarios {

    private static final String URL = System.getenv().getOrDefault("LOOMPOOL_TEST_POSTGRES_URL",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    @BeforeAll
    static void requirePostgres() {
        try (Connection c = DriverManager.getConnection(URL)) {
            c.isValid(2);
        } catch (SQLException e) {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                throw new AssertionError("PostgreSQL is not reachable under CI: " + e.getMessage(), e);
            }
            Assumptions.abort("PostgreSQL is not reachable: " + e.getMessage());
        }
    }

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", () -> URL);
    }
}
