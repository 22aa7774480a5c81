package dev.loompool.spring;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.sql.*;
import java.util.*;
import java.util.concurrent.*;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

class ZzScratchCracTest {
    static final String URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    static int backends(String app) throws SQLException {
        try (Connection c = DriverManager.getConnection(URL); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE application_name = '" + app + "'")) {
            rs.next(); return rs.getInt(1);
        }
    }

    ApplicationContextRunner runner(String app, String... more) {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class,
                DataSourceAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + URL, "loompool.min-size=2",
                "loompool.data-source-properties.ApplicationName=" + app)
            .withPropertyValues(more);
    }

    @Test
    void c1_childContextClosedThenCheckpoint() {
        String app = "zzc1-" + UUID.randomUUID().toString().substring(0, 6);
        runner(app).run(ctx -> {
            LoomPoolDataSource ds = ctx.getBean(LoomPoolDataSource.class);
            ConfigurableApplicationContext parent = ctx.getSourceApplicationContext();
            AnnotationConfigApplicationContext child = new AnnotationConfigApplicationContext();
            child.setParent(parent);
            child.refresh();
            child.close(); // e.g. a per-job / per-client child context ends while the application runs
            long t0 = System.nanoTime();
            parent.stop(); // what CRaC's beforeCheckpoint does (stopForRestart)
            System.out.println("PROBE c1 after child close + stop(): took " + (System.nanoTime() - t0) / 1_000_000 + " ms, state=" + ds.getPool().state()
                + " stats=" + ds.getPool().stats() + " backends=" + backends(app));
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) { s.execute("SELECT 1"); System.out.println("PROBE c1 getConnection during 'checkpoint' succeeded"); }
            catch (SQLException e) { System.out.println("PROBE c1 during checkpoint: " + e.getMessage()); }
            parent.start();
        });
        // control: no child
        String app2 = "zzc1b-" + UUID.randomUUID().toString().substring(0, 6);
        runner(app2).run(ctx -> {
            LoomPoolDataSource ds = ctx.getBean(LoomPoolDataSource.class);
            ctx.getSourceApplicationContext().stop();
            System.out.println("PROBE c1-control stop(): state=" + ds.getPool().state() + " stats=" + ds.getPool().stats() + " backends=" + backends(app2));
            ctx.getSourceApplicationContext().start();
            Thread.sleep(300);
            System.out.println("PROBE c1-control start(): state=" + ds.getPool().state() + " stats=" + ds.getPool().stats() + " backends=" + backends(app2));
        });
    }

    @Test
    void c2_zeroAcquireTimeout() {
        String app = "zzc2-" + UUID.randomUUID().toString().substring(0, 6);
        runner(app, "loompool.acquire-timeout=0").run(ctx -> {
            LoomPoolDataSource ds = ctx.getBean(LoomPoolDataSource.class);
            long t0 = System.nanoTime();
            ctx.getSourceApplicationContext().stop();
            System.out.println("PROBE c2 acquire-timeout=0: stop() returned after " + (System.nanoTime() - t0) / 1_000_000 + " ms; right then: stats=" + ds.getPool().stats() + " backends=" + backends(app));
            Thread.sleep(500);
            System.out.println("PROBE c2 500 ms later: stats=" + ds.getPool().stats() + " backends=" + backends(app));
            ctx.getSourceApplicationContext().start();
        });
    }

    @Test
    void c3_sessionPinnedHandleDuringCheckpoint() {
        String app = "zzc3-" + UUID.randomUUID().toString().substring(0, 6);
        runner(app, "loompool.acquire-timeout=2s").run(ctx -> {
            LoomPoolDataSource ds = ctx.getBean(LoomPoolDataSource.class);
            Connection a = ds.getConnection();
            try (Statement s = a.createStatement()) {
                s.execute("CREATE TEMP TABLE zz_tmp (v int)");
                s.execute("INSERT INTO zz_tmp VALUES (7)");
                s.execute("SET statement_timeout = 4321");
            }
            long t0 = System.nanoTime();
            ctx.getSourceApplicationContext().stop();
            System.out.println("PROBE c3 stop() took " + (System.nanoTime() - t0) / 1_000_000 + " ms; stats=" + ds.getPool().stats() + " backends=" + backends(app));
            ctx.getSourceApplicationContext().start();
            try (Statement s = a.createStatement(); ResultSet rs = s.executeQuery("SELECT (SELECT v FROM zz_tmp) || ' ' || current_setting('statement_timeout')")) {
                rs.next(); System.out.println("PROBE c3 A after restore still sees: " + rs.getString(1));
            }
            a.close();
            try (Connection b = ds.getConnection(); Statement s = b.createStatement(); ResultSet rs = s.executeQuery("SELECT current_setting('statement_timeout') || ' temp=' || (SELECT count(*) FROM pg_class WHERE relname='zz_tmp' AND relpersistence='t')")) {
                rs.next(); System.out.println("PROBE c3 B sees: " + rs.getString(1) + " state=" + ds.getPool().state());
            }
        });
    }

    @Test
    void c4_transactionSpansStopAndStart() {
        String app = "zzc4-" + UUID.randomUUID().toString().substring(0, 6);
        runner(app, "loompool.acquire-timeout=1s", "loompool.max-size=2").run(ctx -> {
            LoomPoolDataSource ds = ctx.getBean(LoomPoolDataSource.class);
            String tb = "zzc4_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) { s.execute("CREATE TABLE " + tb + " (id int)"); }
            Connection a = ds.getConnection();
            a.setAutoCommit(false);
            try (Statement s = a.createStatement()) { s.executeUpdate("INSERT INTO " + tb + " VALUES (1)"); }
            ctx.getSourceApplicationContext().stop(); // A overruns the 1 s wait
            String during;
            try (Statement s = a.createStatement()) { s.executeUpdate("INSERT INTO " + tb + " VALUES (2)"); during = "A's 2nd insert ok"; } catch (SQLException e) { during = "A's 2nd insert failed: " + e.getMessage(); }
            ctx.getSourceApplicationContext().start();
            a.rollback();
            a.close();
            try (Connection b = ds.getConnection(); Statement s = b.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM " + tb)) {
                rs.next(); System.out.println("PROBE c4 " + during + "; rows after A's rollback=" + rs.getInt(1) + " state=" + ds.getPool().state() + " stats=" + ds.getPool().stats());
            }
            for (int i = 0; i < 4; i++) { System.out.println("PROBE c4 after B closed +" + (i * 500) + "ms stats=" + ds.getPool().stats() + " openHandles=" + ds.getOpenHandles() + " backends=" + backends(app)); Thread.sleep(500); }
        });
    }
}
