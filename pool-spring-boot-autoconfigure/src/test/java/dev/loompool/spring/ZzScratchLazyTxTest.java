package dev.loompool.spring;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.sql.*;
import java.util.*;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.DataSourceUnwrapper;
import org.springframework.boot.jdbc.autoconfigure.*;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

class ZzScratchLazyTxTest {
    static final String URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    ApplicationContextRunner runner(String fetch, int max) {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class,
                DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
                TransactionAutoConfiguration.class, JdbcTemplateAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + URL, "loompool.min-size=0", "loompool.max-size=" + max,
                "spring.datasource.connection-fetch=" + fetch);
    }

    static String t() { return "zzl_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8); }

    @Test
    void scenarios() {
        for (String fetch : new String[] {"eager", "lazy"}) {
            runner(fetch, 1).run(ctx -> {
                JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
                PlatformTransactionManager tm = ctx.getBean(PlatformTransactionManager.class);
                String tb = t();
                jdbc.execute("CREATE TABLE " + tb + " (id int)");
                // S1: rollback via exception
                TransactionTemplate tx = new TransactionTemplate(tm);
                try { tx.executeWithoutResult(s -> { jdbc.update("INSERT INTO " + tb + " VALUES (1)"); throw new IllegalStateException("x"); }); } catch (IllegalStateException e) {}
                // S2: SET search_path + SET statement_timeout in a committed tx, isolation serializable, readOnly
                TransactionTemplate ro = new TransactionTemplate(tm);
                ro.setIsolationLevel(TransactionDefinition.ISOLATION_SERIALIZABLE);
                ro.setReadOnly(true);
                ro.executeWithoutResult(s -> { jdbc.execute("SET statement_timeout = 1234"); jdbc.queryForObject("SELECT 1", Integer.class); });
                // S3: setRollbackOnly
                tx.executeWithoutResult(s -> { jdbc.update("INSERT INTO " + tb + " VALUES (3)"); s.setRollbackOnly(); });
                // B (same single physical connection)
                String b = jdbc.queryForObject("SELECT current_setting('statement_timeout') || ' ' || current_setting('transaction_isolation') || ' ro=' || current_setting('transaction_read_only') || ' count=' || (SELECT count(*) FROM " + tb + ")", String.class);
                // B writes in autocommit: is it committed (visible from an outside connection)?
                jdbc.update("INSERT INTO " + tb + " VALUES (42)");
                int outside;
                try (Connection c = DriverManager.getConnection(URL); Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM " + tb + " WHERE id=42")) { rs.next(); outside = rs.getInt(1); }
                System.out.println("PROBE " + fetch + " B sees: " + b + "; B's autocommit insert visible outside=" + outside);
            });
            runner(fetch, 2).run(ctx -> {
                JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
                PlatformTransactionManager tm = ctx.getBean(PlatformTransactionManager.class);
                String tb = t();
                jdbc.execute("CREATE TABLE " + tb + " (id int)");
                TransactionTemplate outer = new TransactionTemplate(tm);
                TransactionTemplate inner = new TransactionTemplate(tm);
                inner.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
                // outer commits, inner rolls back
                outer.executeWithoutResult(s -> {
                    jdbc.update("INSERT INTO " + tb + " VALUES (1)");
                    try { inner.executeWithoutResult(i -> { jdbc.update("INSERT INTO " + tb + " VALUES (2)"); throw new IllegalStateException(); }); } catch (IllegalStateException e) {}
                    jdbc.update("INSERT INTO " + tb + " VALUES (3)");
                });
                // outer rolls back, inner commits
                try { outer.executeWithoutResult(s -> {
                    jdbc.update("INSERT INTO " + tb + " VALUES (4)");
                    inner.executeWithoutResult(i -> jdbc.update("INSERT INTO " + tb + " VALUES (5)"));
                    throw new IllegalStateException();
                }); } catch (IllegalStateException e) {}
                // inner first touch before outer ever touched the DB (lazy: outer never fetched)
                try { outer.executeWithoutResult(s -> {
                    inner.executeWithoutResult(i -> jdbc.update("INSERT INTO " + tb + " VALUES (6)"));
                    jdbc.update("INSERT INTO " + tb + " VALUES (7)");
                    throw new IllegalStateException();
                }); } catch (IllegalStateException e) {}
                List<Integer> ids = jdbc.queryForList("SELECT id FROM " + tb + " ORDER BY id", Integer.class);
                LoomPoolDataSource p = DataSourceUnwrapper.unwrap(ctx.getBean(DataSource.class), LoomPoolDataSource.class);
                System.out.println("PROBE " + fetch + " REQUIRES_NEW rows=" + ids + " (expected [1, 3, 5, 6]) inUse=" + p.getPool().stats().inUse() + " openHandles=" + p.getOpenHandles());
            });
        }
    }
}
