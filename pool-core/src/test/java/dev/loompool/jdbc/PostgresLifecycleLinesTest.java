package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The DEBUG reset line on the real PostgreSQL (issue 40): a session SQL changed is reset by
 * DISCARD ALL and the driver's settings put back, and the line says so; LifecycleLinesTest has
 * the other lines on the stub driver.
 */
class PostgresLifecycleLinesTest {

    private LoomPoolDataSource ds;

    @AfterEach
    void close() {
        if (ds != null) {
            ds.close();
        }
    }

    @Test
    void aSessionChangedBySqlIsAResetLineNamingTheDiscard() throws Exception {
        ds = new LoomPoolDataSource();
        ds.setJdbcUrl(TestDatabase.POSTGRES.url());
        ds.setPoolName("lines-" + UUID.randomUUID().toString().substring(0, 8));
        System.setProperty("org.slf4j.simpleLogger.log.dev.loompool.pool." + ds.getPoolName(), "debug");
        ds.setMinSize(0);
        ds.setMaxSize(1);
        String log = SecretLeaks.logOf(() -> {
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("SET search_path = pg_catalog, public");
            }
        });
        assertThat(log.lines().filter(l -> l.contains("pool '" + ds.getPoolName() + "': reset connection #")))
                .singleElement().asString().contains("undid: DISCARD ALL + the driver's session settings");
    }
}
