package dev.loompool.jdbc;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.JdbcDatabaseContainer;
import org.testcontainers.mariadb.MariaDBContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The third source of a test database, after the environment and the local server: a container,
 * started once per test JVM (Testcontainers' Ryuk removes it afterwards), when Docker answers.
 * This project's own machines run no Docker, so CI keeps using the local servers.
 */
final class TestContainers {

    private TestContainers() {
    }

    /** A URL with user and password for a fresh container of {@code db}, or null without Docker. */
    static String url(TestDatabase db) {
        if (!dockerAnswers()) {
            return null;
        }
        JdbcDatabaseContainer<?> container = db == TestDatabase.POSTGRES
                ? new PostgreSQLContainer("postgres:17-alpine")
                : new MariaDBContainer("mariadb:11");
        container.withDatabaseName("test");
        container.start();
        String url = container.getJdbcUrl();
        return url + (url.contains("?") ? "&" : "?") + "user=" + container.getUsername() + "&password="
                + container.getPassword();
    }

    private static boolean dockerAnswers() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }
}
