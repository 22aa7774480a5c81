package dev.loompool.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/** The real database of P3 and P5: {@code LOOMPOOL_TEST_POSTGRES_URL}, else the local default. */
final class Postgres {

    static final String URL = System.getenv().getOrDefault("LOOMPOOL_TEST_POSTGRES_URL",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    private Postgres() {
    }

    static boolean reachable() {
        try (Connection c = DriverManager.getConnection(URL)) {
            return c.isValid(2);
        } catch (SQLException e) {
            return false;
        }
    }
}
