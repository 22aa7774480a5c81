package dev.loompool.spring;

import java.sql.*;
import java.util.*;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.*;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

class ZzScratchBrokenTxTest {
    static final String URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    @Test
    void killedBackendMidTransaction() {
        for (String fetch : new String[] {"eager", "lazy"}) {
            new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class,
                    DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
                    TransactionAutoConfiguration.class, JdbcTemplateAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + URL, "loompool.min-size=0", "loompool.max-size=2",
                    "spring.datasource.connection-fetch=" + fetch)
                .run(ctx -> {
                    JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
                    String tb = "zzb_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
                    jdbc.execute("CREATE TABLE " + tb + " (id int)");
                    List<String> log = new ArrayList<>();
                    try {
                        new TransactionTemplate(ctx.getBean(PlatformTransactionManager.class)).executeWithoutResult(s -> {
                            jdbc.update("INSERT INTO " + tb + " VALUES (1)");
                            int pid = jdbc.queryForObject("SELECT pg_backend_pid()", Integer.class);
                            try (Connection c = DriverManager.getConnection(URL); Statement st = c.createStatement()) {
                                st.execute("SELECT pg_terminate_backend(" + pid + ")");
                            } catch (SQLException e) { throw new RuntimeException(e); }
                            try { jdbc.update("INSERT INTO " + tb + " VALUES (2)"); log.add("insert2 ok"); } catch (Exception e) { log.add("insert2 failed: " + e.getClass().getSimpleName()); }
                            try { jdbc.update("INSERT INTO " + tb + " VALUES (3)"); log.add("insert3 ok"); } catch (Exception e) { log.add("insert3 failed: " + e.getClass().getSimpleName()); }
                        });
                        log.add("commit ok");
                    } catch (Exception e) { log.add("tx failed: " + e.getClass().getSimpleName() + ": " + e.getMessage()); }
                    System.out.println("PROBE " + fetch + " " + log + " rows=" + jdbc.queryForList("SELECT id FROM " + tb, Integer.class));
                });
        }
    }
}
