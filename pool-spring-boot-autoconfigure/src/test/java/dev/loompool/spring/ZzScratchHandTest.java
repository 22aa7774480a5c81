package dev.loompool.spring;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.sql.*;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class ZzScratchHandTest {
    static final String URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    @Test
    void operatorHoldAfterAnEviction() {
        for (boolean evictFirst : new boolean[] {false, true}) {
            new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class,
                    LoomPoolEndpointAutoConfiguration.class, DataSourceAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + URL, "loompool.min-size=2", "loompool.pool-name=orders", "management.endpoints.web.exposure.include=loompool")
                .run(ctx -> {
                    LoomPoolEndpoint endpoint = ctx.getBean(LoomPoolEndpoint.class);
                    LoomPoolDataSource ds = ctx.getBean(LoomPoolDataSource.class);
                    if (evictFirst) {
                        System.out.println("PROBE DELETE /actuator/loompool/orders/idle -> " + endpoint.evict("orders", "idle"));
                    }
                    for (int i = 0; i < 20; i++) { try (Connection c = ds.getConnection(); Statement s = c.createStatement()) { s.execute("SELECT 1"); } }
                    System.out.println("PROBE POST state=INACTIVE -> " + endpoint.setState("orders", "INACTIVE"));
                    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) { s.execute("SELECT 1"); }
                    catch (SQLException e) { System.out.println("PROBE evictFirst=" + evictFirst + " caller told: " + e.getMessage()); }
                });
        }
    }
}
