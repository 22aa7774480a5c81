package dev.loompool.bench;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

/**
 * P5: a pgbench-like transaction (3 updates, 1 select, 1 insert) through Spring's JdbcTemplate and
 * {@code @Transactional}, on real PostgreSQL, 16 platform threads over 10 connections.
 */
final class P5Oltp implements Scenario {

    static final int BRANCHES = 1;
    static final int TELLERS = 10;
    static final int ACCOUNTS = 10_000;

    @Override
    public String id() {
        return "P5";
    }

    @Override
    public String title() {
        return "PostgreSQL OLTP through Spring JdbcTemplate + @Transactional (pgbench-like), 16 threads, max 10";
    }

    @Override
    public String target() {
        return "throughput >= HikariCP's";
    }

    @Override
    public Trial run(PoolKind pool, Mode mode) throws Exception {
        DataSource ds = pool.open(new PoolKind.Settings(Postgres.URL, null, null, 10, 10, Duration.ofSeconds(60)));
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            context.registerBean(DataSource.class, () -> ds);
            context.register(SpringSetup.class);
            context.refresh();
            Teller teller = context.getBean(Teller.class);
            return Load.run(pool, mode, 16, false, () -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                teller.transact(r.nextInt(1, ACCOUNTS + 1), r.nextInt(1, TELLERS + 1), r.nextInt(1, BRANCHES + 1),
                        r.nextInt(-5000, 5001));
            });
        } finally {
            PoolKind.close(ds);
        }
    }

    /** Creates and fills the pgbench-like tables once per run, on a plain connection. */
    static void prepareTables() throws Exception {
        try (var c = java.sql.DriverManager.getConnection(Postgres.URL); var st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS bench_branches (bid INT PRIMARY KEY, bbalance INT NOT NULL)");
            st.execute("CREATE TABLE IF NOT EXISTS bench_tellers (tid INT PRIMARY KEY, bid INT NOT NULL, tbalance INT NOT NULL)");
            st.execute("CREATE TABLE IF NOT EXISTS bench_accounts (aid INT PRIMARY KEY, bid INT NOT NULL, "
                    + "abalance INT NOT NULL, filler CHAR(84))");
            st.execute("CREATE TABLE IF NOT EXISTS bench_history (tid INT, bid INT, aid INT, delta INT, mtime TIMESTAMP, filler CHAR(22))");
            st.execute("INSERT INTO bench_branches SELECT b, 0 FROM generate_series(1, " + BRANCHES + ") b ON CONFLICT DO NOTHING");
            st.execute("INSERT INTO bench_tellers SELECT t, 1 + (t - 1) % " + BRANCHES + ", 0 FROM generate_series(1, "
                    + TELLERS + ") t ON CONFLICT DO NOTHING");
            st.execute("INSERT INTO bench_accounts SELECT a, 1 + (a - 1) % " + BRANCHES + ", 0, '' FROM generate_series(1, "
                    + ACCOUNTS + ") a ON CONFLICT DO NOTHING");
            st.execute("TRUNCATE bench_history");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class SpringSetup {

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            return new JdbcTemplate(dataSource);
        }

        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        Teller teller(JdbcTemplate jdbc) {
            return new Teller(jdbc);
        }
    }

    /** The pgbench TPC-B-like transaction. */
    static class Teller {

        private final JdbcTemplate jdbc;

        Teller(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Transactional
        public int transact(int aid, int tid, int bid, int delta) {
            jdbc.update("UPDATE bench_accounts SET abalance = abalance + ? WHERE aid = ?", delta, aid);
            Integer balance = jdbc.queryForObject("SELECT abalance FROM bench_accounts WHERE aid = ?", Integer.class, aid);
            jdbc.update("UPDATE bench_tellers SET tbalance = tbalance + ? WHERE tid = ?", delta, tid);
            jdbc.update("UPDATE bench_branches SET bbalance = bbalance + ? WHERE bid = ?", delta, bid);
            jdbc.update("INSERT INTO bench_history (tid, bid, aid, delta, mtime) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)",
                    tid, bid, aid, delta);
            return balance == null ? 0 : balance;
        }
    }
}
