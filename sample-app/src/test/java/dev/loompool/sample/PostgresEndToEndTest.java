package dev.loompool.sample;

import dev.loompool.jdbc.TestDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The sample with the {@code postgres} profile against a real PostgreSQL, found as every
 * integration test finds it ({@link TestDatabase}: the environment, the local server, a container).
 * Skipped without one, except under CI=true, where it fails.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ActiveProfiles("postgres")
class PostgresEndToEndTest extends EndToEndScenarios {

    @BeforeAll
    static void requirePostgres() {
        TestDatabase.POSTGRES.url(); // skips (fails under CI) before the context is loaded
    }

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        String url = TestDatabase.POSTGRES.url(); // skipped without PostgreSQL, failed under CI
        registry.add("spring.datasource.url", () -> url);
    }
}
